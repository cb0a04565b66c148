package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for deterministic tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestLine(t *testing.T) {
	tests := []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{0, 40, 0, "cal [                        ] 0/40   0% ETA ?"},
		{12, 40, 6 * time.Second, "cal [=======>                ] 12/40  30% ETA 14s"},
		{20, 40, 300 * time.Second, "cal [============>           ] 20/40  50% ETA 5m00s"},
		{40, 40, 9 * time.Second, "cal [========================] 40/40 100% ETA 0s"},
	}
	for _, tc := range tests {
		c := &fakeClock{t: time.Unix(0, 0)}
		b := newBar(nil, "cal", tc.total, false, c.now)
		b.done = tc.done
		c.advance(tc.elapsed)
		if got := b.line(c.now(), false); got != tc.want {
			t.Errorf("line(%d/%d) =\n%q, want\n%q", tc.done, tc.total, got, tc.want)
		}
	}
}

func TestLog(t *testing.T) {
	var buf bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0)}
	b := newBar(&buf, "mem", 10, false, c.now)
	for i := 0; i < 10; i++ {
		c.advance(time.Second)
		b.Add(1)
	}
	b.Done()
	b.Done()
	b.Add(3)
	out := buf.String()
	if strings.Contains(out, "\r") {
		t.Errorf("log output has a carriage return: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// 10 s of progress with lines at most every 5 s: lines at 5 s and
	// 10 s, plus the final one.
	want := []string{
		"mem [============>           ] 5/10  50% ETA 5s",
		"mem [========================] 10/10 100% ETA 0s",
		"mem [========================] 10/10 100% in 10s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("log output:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

func TestTerminal(t *testing.T) {
	var buf bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0)}
	b := newBar(&buf, "x", 4, true, c.now)
	b.Set(1) // within 100 ms of the first draw: not redrawn
	c.advance(time.Second)
	b.Set(2)
	b.Done()
	out := buf.String()
	if got := strings.Count(out, "\r"); got != 3 {
		t.Errorf("%d redraws, want 3 (start, 2/4, done): %q", got, out)
	}
	if !strings.HasSuffix(out, "\rx [========================] 4/4 100% in 1s \n") { // blanks the longer line
		t.Errorf("final line: %q", out)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("want exactly one newline: %q", out)
	}
}

func TestNil(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Set(2)
	b.SetTotal(3)
	b.Done()
	quiet := New(nil, "q", 3)
	quiet.Add(3)
	quiet.Done()
	if IsTerminal(nil) || IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
}

func TestSetTotal(t *testing.T) {
	var buf bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0)}
	b := newBar(&buf, "o", 0, false, c.now)
	b.SetTotal(8)
	b.Set(100) // clamped to the total
	b.Done()
	if buf.String() != "o [========================] 8/8 100% in 0s\n" {
		t.Errorf("got %q", buf.String())
	}
}

// TestStop: a bar stopped by failed work shows how far it got, not a
// full bar, and stays stopped.
func TestStop(t *testing.T) {
	var buf bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0)}
	b := newBar(&buf, "p", 10, false, c.now)
	b.Add(3)
	c.advance(2 * time.Second)
	b.Stop()
	b.Done()
	b.Add(5)
	if got, want := buf.String(), "p [=======>                ] 3/10  30% in 2s\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var nilBar *Bar
	nilBar.Stop()
}
