package bandit

import (
	"testing"
	"time"
)

func TestStream(t *testing.T) {
	buf := make([]uint64, 64) // 8 lines of 8 words
	for i := range buf {
		buf[i] = uint64(i)
	}
	tests := []struct {
		name                string
		start, lines, strid int
		next                int
		acc                 uint64
	}{
		// Sequential: lines 6, 7, 0, 1 — first words 48, 56, 0, 8.
		{"sequential", 6, 4, 1, 2, 48 + 56 + 0 + 8},
		// Stride 3: lines 1, 4, 7 — first words 8, 32, 56.
		{"stride 3", 1, 3, 3, 2, 8 + 32 + 56},
	}
	for _, tc := range tests {
		next, acc := Stream(buf, tc.start, tc.lines, 8, tc.strid, 0, 0)
		if next != tc.next || acc != tc.acc {
			t.Errorf("%s: next %d, acc %d; want %d, %d", tc.name, next, acc, tc.next, tc.acc)
		}
	}
}

func TestBuffer(t *testing.T) {
	b := Buffer(100 << 10)
	if len(b) != 16384 {
		t.Fatalf("len %d, want 16384 words (the power of two ≥ 100 KiB)", len(b))
	}
	for i, v := range b {
		if v == 0 {
			t.Fatalf("word %d is zero", i)
		}
	}
}

// TestGang starts and stops bandits twice, some of them each time, and
// checks what they report: lines for those started, nothing for the
// others; never a speed.
func TestGang(t *testing.T) {
	bufs := [][]uint64{Buffer(1 << 20), Buffer(1 << 20)}
	g := NewGang(bufs, Options{CPUs: []int{-1, -1}})
	defer g.Close()
	if g.Size() != 2 {
		t.Fatalf("Size %d", g.Size())
	}
	for _, n := range []int{1, 2, 0} {
		g.Start(n, 0)
		time.Sleep(5 * time.Millisecond)
		cs := g.Stop()
		if len(cs) != n {
			t.Fatalf("Start(%d): %d counts", n, len(cs))
		}
		for i, c := range cs {
			if c.Lines <= 0 || c.WallNs <= 0 || c.BusyNs <= 0 || c.BusyNs > c.WallNs {
				t.Errorf("Start(%d): bandit %d: %+v", n, i, c)
			}
			if c.MBs(64) <= 0 || c.Share() <= 0 || c.Share() > 1 {
				t.Errorf("Start(%d): bandit %d: %.0f MB/s, share %.2f", n, i, c.MBs(64), c.Share())
			}
		}
	}
	tot := Total([]Counts{{Lines: 1, BusyNs: 2, WallNs: 3}, {Lines: 10, BusyNs: 20, WallNs: 30}})
	if tot != (Counts{Lines: 11, BusyNs: 22, WallNs: 33}) {
		t.Errorf("Total = %+v", tot)
	}
	if (Counts{}).MBs(64) != 0 || (Counts{}).Share() != 0 {
		t.Error("an empty Counts must report 0")
	}
}

// TestLastShares: a lazy gang's last bandit streams the first one's
// buffer (having touched half of it) and starts each job half a buffer
// ahead of where the first starts; the others make buffers of their own.
func TestLastShares(t *testing.T) {
	g := NewLazyGang(3, 1<<20, Options{LastShares: true})
	defer g.Close()
	for !g.Ready() {
		time.Sleep(time.Millisecond)
	}
	w0, w1, w2 := g.workers[0], g.workers[1], g.workers[2]
	if &w2.buf[0] != &w0.buf[0] || &w1.buf[0] == &w0.buf[0] {
		t.Fatal("the last bandit must stream the first one's buffer, the middle one its own")
	}
	for i, v := range w0.buf { // both halves touched, the last's too
		if v == 0 {
			t.Fatalf("word %d of the shared buffer is zero", i)
		}
	}
	lines := int64(len(w0.buf) / g.wpl)
	for round := 0; round < 3; round++ {
		start0 := w0.at.Load()
		cs := g.StreamFor(3, 0, nil, time.Millisecond)
		// Where a bandit started: where it stopped less what it streamed.
		started := func(w *worker, c Counts) int64 { return ((w.at.Load()-c.Lines)%lines + lines) % lines }
		if got := started(w0, cs[0]); got != start0 {
			t.Errorf("round %d: the first started at line %d, want %d (where it stopped)", round, got, start0)
		}
		if got, want := started(w2, cs[2]), (start0+lines/2)%lines; got != want {
			t.Errorf("round %d: the last started at line %d, want %d (half of %d lines ahead)", round, got, want, lines)
		}
	}
	if g := NewLazyGang(1, 1<<16, Options{LastShares: true}); g.workers[0].shares != nil {
		t.Error("a gang of one has no bandit to share with")
	} else {
		g.Close()
	}
}

// TestStartBeforeBuffer: a Start that comes while a lazy bandit still
// makes its buffer waits for it, and the bandit's wall time counts from
// when it could begin: touching its pages is not starvation. Started at
// once on a gang whose 32 MiB buffer takes milliseconds to make, its
// wall time must stay well below the wait plus what it streamed, as it
// would not if it counted the wait.
func TestStartBeforeBuffer(t *testing.T) {
	g := NewLazyGang(1, 32<<20, Options{})
	defer g.Close()
	began := time.Now()
	g.StartUntil(1, 0, nil, time.Hour)
	waited := time.Since(began)
	streamedFrom := time.Now()
	time.Sleep(2 * time.Millisecond)
	cs := g.Stop()
	streamed := time.Since(streamedFrom)
	if c := cs[0]; c.Lines <= 0 || time.Duration(c.WallNs) >= streamed+waited/2 {
		t.Errorf("wall %v, lines %d: Start waited %v for the buffer and the bandit then streamed for %v; want a wall time below %v",
			time.Duration(c.WallNs), c.Lines, waited, streamed, streamed+waited/2)
	}
}
