package par

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var testSchedules = []Schedule{
	{Policy: Static},
	{Policy: StaticChunk, Chunk: 1},
	{Policy: StaticChunk, Chunk: 3},
	{Policy: Dynamic, Chunk: 1},
	{Policy: Dynamic, Chunk: 4},
	{Policy: Guided, Chunk: 1},
	{Policy: Guided, Chunk: 3},
	{Policy: Spawn},
	{Policy: Pool},
	{Policy: Errgroup},
	{Policy: Dynamic, Chunk: 0}, // chunk < 1 is treated as 1
}

var (
	testNs      = []int{0, 1, 2, 7, 100}
	testThreads = []int{-1, 0, 1, 2, 3, 8}
)

// record runs ForWorker and returns, per index, the worker that ran it
// (−1 if none, −2 if more than once) and, per worker, the indices in the
// order it ran them.
func record(t *testing.T, n, threads int, s Schedule) (owner []int, byWorker map[int][]int) {
	t.Helper()
	hits := make([]atomic.Int32, n)
	who := make([]atomic.Int32, n)
	seq := make([]atomic.Int64, n) // order of execution within a worker
	counters := make([]atomic.Int64, n+max(threads, 1))
	ForWorker(n, threads, s, func(w, i int) {
		hits[i].Add(1)
		who[i].Store(int32(w))
		seq[i].Store(counters[w].Add(1))
	})
	owner = make([]int, n)
	byWorker = map[int][]int{}
	type ran struct{ i, at int }
	per := map[int][]ran{}
	for i := range n {
		switch h := hits[i].Load(); h {
		case 0:
			owner[i] = -1
		case 1:
			owner[i] = int(who[i].Load())
			per[owner[i]] = append(per[owner[i]], ran{i, int(seq[i].Load())})
		default:
			owner[i] = -2
		}
	}
	for w, rs := range per {
		slices.SortFunc(rs, func(a, b ran) int { return a.at - b.at })
		for _, r := range rs {
			byWorker[w] = append(byWorker[w], r.i)
		}
	}
	return owner, byWorker
}

func teamSize(n, threads int) int { return min(max(threads, 1), n) }

func TestForEveryIndexOnce(t *testing.T) {
	for _, s := range testSchedules {
		for _, n := range testNs {
			for _, threads := range testThreads {
				t.Run(fmt.Sprintf("%v/n=%d/t=%d", s, n, threads), func(t *testing.T) {
					owner, _ := record(t, n, threads, s)
					for i, w := range owner {
						switch {
						case w == -1:
							t.Errorf("index %d never ran", i)
						case w == -2:
							t.Errorf("index %d ran more than once", i)
						case s.PerTask() && w != i:
							t.Errorf("%v: index %d ran with worker %d, want worker = index", s, i, w)
						case !s.PerTask() && w >= teamSize(n, threads):
							t.Errorf("index %d ran on worker %d, team has %d", i, w, teamSize(n, threads))
						}
					}
					// For (without worker) runs each index once too.
					var count atomic.Int64
					sum := make([]atomic.Int32, n)
					For(n, threads, s, func(i int) { count.Add(1); sum[i].Add(1) })
					if int(count.Load()) != n {
						t.Errorf("For ran %d bodies, want %d", count.Load(), n)
					}
				})
			}
		}
	}
}

func TestStaticAssignment(t *testing.T) {
	for _, s := range []Schedule{{Policy: Static}, {Policy: StaticChunk, Chunk: 1}, {Policy: StaticChunk, Chunk: 2}, {Policy: StaticChunk, Chunk: 5}} {
		for _, n := range testNs {
			for _, threads := range []int{1, 2, 3, 8} {
				t.Run(fmt.Sprintf("%v/n=%d/t=%d", s, n, threads), func(t *testing.T) {
					_, got := record(t, n, threads, s)
					want := map[int][]int{}
					if n > 0 {
						s.StaticChunks(n, teamSize(n, threads), func(w, lo, hi int) {
							for i := lo; i < hi; i++ {
								want[w] = append(want[w], i)
							}
						})
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("worker → indices in run order = %v, want %v", got, want)
					}
				})
			}
		}
	}
}

func TestWorkerChunksMatchesStaticChunks(t *testing.T) {
	for _, s := range []Schedule{{Policy: Static}, {Policy: StaticChunk, Chunk: 1}, {Policy: StaticChunk, Chunk: 3}} {
		for _, n := range []int{0, 1, 2, 7, 10, 100} {
			for _, threads := range []int{1, 2, 3, 4, 8, 16} {
				want := map[int][][2]int{}
				s.StaticChunks(n, threads, func(w, lo, hi int) { want[w] = append(want[w], [2]int{lo, hi}) })
				got := map[int][][2]int{}
				for w := range threads {
					s.WorkerChunks(n, threads, w, func(lo, hi int) { got[w] = append(got[w], [2]int{lo, hi}) })
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%v n=%d t=%d: WorkerChunks %v, StaticChunks %v", s, n, threads, got, want)
				}
			}
		}
	}
}

// guidedChunks is the deterministic sequence of guided chunk bounds.
func guidedChunks(s Schedule, n, threads int) [][2]int {
	var out [][2]int
	for lo := 0; lo < n; {
		hi := lo + s.GuidedChunk(n-lo, threads)
		out = append(out, [2]int{lo, hi})
		lo = hi
	}
	return out
}

func TestChunksStayWhole(t *testing.T) {
	tests := []struct {
		s       Schedule
		n       int
		threads int
	}{
		{Schedule{Policy: Dynamic, Chunk: 1}, 100, 3},
		{Schedule{Policy: Dynamic, Chunk: 4}, 100, 3},
		{Schedule{Policy: Dynamic, Chunk: 7}, 50, 8},
		{Schedule{Policy: Guided, Chunk: 1}, 100, 3},
		{Schedule{Policy: Guided, Chunk: 5}, 100, 2},
		{Schedule{Policy: Guided, Chunk: 2}, 7, 8},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/n=%d/t=%d", tc.s, tc.n, tc.threads), func(t *testing.T) {
			var chunks [][2]int
			if tc.s.Policy == Dynamic {
				for lo := 0; lo < tc.n; lo += tc.s.Chunk {
					chunks = append(chunks, [2]int{lo, min(lo+tc.s.Chunk, tc.n)})
				}
			} else {
				chunks = guidedChunks(tc.s, tc.n, teamSize(tc.n, tc.threads))
			}
			owner, byWorker := record(t, tc.n, tc.threads, tc.s)
			for _, c := range chunks {
				for i := c[0]; i < c[1]; i++ {
					if owner[i] != owner[c[0]] || owner[i] < 0 {
						t.Fatalf("chunk %v split: index %d on worker %d, index %d on worker %d", c, c[0], owner[c[0]], i, owner[i])
					}
				}
			}
			// Within a worker, a chunk's indices run consecutively and in
			// increasing order; chunks taken later start later.
			for w, idx := range byWorker {
				if !slices.IsSorted(idx) {
					t.Errorf("worker %d ran %v, not in increasing order", w, idx)
				}
			}
		})
	}
}

func TestGuidedChunkSizes(t *testing.T) {
	for _, c := range []int{1, 2, 5} {
		for _, n := range []int{1, 7, 100, 1000} {
			for _, threads := range []int{1, 2, 3, 8} {
				s := Schedule{Policy: Guided, Chunk: c}
				chunks := guidedChunks(s, n, threads)
				for k, ch := range chunks {
					size := ch[1] - ch[0]
					if k > 0 && size > chunks[k-1][1]-chunks[k-1][0] {
						t.Errorf("%v n=%d t=%d: chunk %d size %d grows after %d", s, n, threads, k, size, chunks[k-1][1]-chunks[k-1][0])
					}
					if k < len(chunks)-1 && size < c {
						t.Errorf("%v n=%d t=%d: chunk %d size %d < C", s, n, threads, k, size)
					}
				}
				if last := chunks[len(chunks)-1]; last[1] != n {
					t.Errorf("%v n=%d t=%d: chunks end at %d", s, n, threads, last[1])
				}
			}
		}
	}
}

func TestNestedFor(t *testing.T) {
	for _, outer := range testSchedules {
		for _, inner := range []Schedule{{Policy: Static}, {Policy: Dynamic, Chunk: 1}, {Policy: Spawn}} {
			const n, m = 7, 5
			var hits [n][m]atomic.Int32
			For(n, 3, outer, func(i int) {
				For(m, 2, inner, func(j int) { hits[i][j].Add(1) })
			})
			for i := range n {
				for j := range m {
					if h := hits[i][j].Load(); h != 1 {
						t.Errorf("%v/%v: (%d,%d) ran %d times", outer, inner, i, j, h)
					}
				}
			}
		}
	}
}

func TestForCallerIsWorkerZero(t *testing.T) {
	// Worker 0 runs on the calling goroutine: a value only the caller's
	// stack can see is reachable without synchronisation from worker 0.
	for _, s := range testSchedules[:7] {
		ran0 := false
		ForWorker(4, 2, s, func(w, i int) {
			if w == 0 {
				ran0 = true // only the calling goroutine writes it
			}
		})
		if s.Policy == Static || s.Policy == StaticChunk {
			if !ran0 {
				t.Errorf("%v: worker 0 ran nothing", s)
			}
		}
	}
}

func TestPanicReachesCaller(t *testing.T) {
	for _, s := range []Schedule{{Policy: Static}, {Policy: Dynamic, Chunk: 1}, {Policy: Spawn}, {Policy: Pool}, {Policy: Errgroup}} {
		t.Run(s.String(), func(t *testing.T) {
			var ran atomic.Int32
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("recovered %v, want boom", r)
				}
			}()
			For(10, 3, s, func(i int) {
				ran.Add(1)
				if i == 9 {
					panic("boom")
				}
			})
			t.Error("For returned normally")
		})
	}
}

func TestDo(t *testing.T) {
	var a, b, c atomic.Int32
	Do(func() { a.Add(1) }, func() { b.Add(1) }, func() { c.Add(1) })
	Do()
	if a.Load() != 1 || b.Load() != 1 || c.Load() != 1 {
		t.Errorf("Do ran %d %d %d times, want 1 each", a.Load(), b.Load(), c.Load())
	}
}

// TestLimits checks that Pool runs on at most threads goroutines and
// Errgroup has at most threads running at once.
func TestLimits(t *testing.T) {
	for _, s := range []Schedule{{Policy: Pool}, {Policy: Errgroup}} {
		for _, threads := range []int{1, 2, 3} {
			var running, most atomic.Int32
			For(200, threads, s, func(int) {
				r := running.Add(1)
				for {
					m := most.Load()
					if r <= m || most.CompareAndSwap(m, r) {
						break
					}
				}
				time.Sleep(10 * time.Microsecond)
				running.Add(-1)
			})
			if m := most.Load(); m > int32(threads) {
				t.Errorf("%v, %d threads: %d bodies ran at once", s, threads, m)
			}
		}
	}
}

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"static", "static", ""},
		{"Static:4", "static:4", ""},
		{"dynamic", "dynamic:1", ""},
		{"guided:2", "guided:2", ""},
		{" spawn ", "spawn", ""},
		{"pool", "pool", ""},
		{"errgroup", "errgroup", ""},
		{"pool:2", "", "pool takes no chunk size"},
		{"errgroup:1", "", "errgroup takes no chunk size"},
		{"dynamic:0", "", "chunk size must be"},
		{"openmp", "", "unknown schedule"},
	}
	for _, tc := range tests {
		s, err := ParseSchedule(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSchedule(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || s.String() != tc.want {
			t.Errorf("ParseSchedule(%q) = %v, %v; want %s", tc.in, s, err, tc.want)
		}
	}
}
