package ff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

func sched(t testing.TB, s string) par.Schedule {
	t.Helper()
	sc, err := par.ParseSchedule(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// rule returns the engine's schedule for s.
func rule(t testing.TB, s string) schedule {
	t.Helper()
	r, err := newSchedule(sched(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var allSchedules = []string{"static", "static:1", "static:3", "dynamic:1", "dynamic:2", "guided:1", "guided:2", "spawn", "pool", "errgroup"}

// emu runs one section with e (nil: New()) and returns its parallel time.
func emu(t testing.TB, e *Emulator, sec *tree.Node, threads int, s string, ov machine.Overheads) float64 {
	t.Helper()
	if e == nil {
		e = New()
	}
	r, err := e.Section(sec, threads, sched(t, s), 1, emulate.Options{Overheads: ov})
	if err != nil {
		t.Fatalf("%s at %d threads: %v", s, threads, err)
	}
	return r.ParallelNs
}

// triangular is a loop whose iterations take 8, 7, ..., 1 ms.
func triangular() *tree.Node {
	var tasks []*tree.Node
	for l := int64(8); l >= 1; l-- {
		tasks = append(tasks, tree.Task(fmt.Sprintf("i%d", 8-l), tree.U(l*1e6)))
	}
	return tree.Sec("tri", tasks...)
}

func TestTriangular(t *testing.T) {
	// Serial 36 ms. Two threads:
	//   static:    blocks {8,7,6,5} = 26 and {4,3,2,1} = 10 → 26.
	//   static:1:  {8,6,4,2} = 20 and {7,5,3,1} = 16 → 20.
	//   dynamic:1: 8 | 7; at 7 the second takes 6 (→13), at 8 the first
	//              takes 5 (→13); at 13 they take 4 (→17) and 3 (→16);
	//              2 at 16 (→18), 1 at 17 (→18) → 18.
	//   guided:1:  chunks ceil(8/2)=4 {8,7,6,5} → 26; {4,3} → 7; {2} → 9;
	//              {1} → 10 → 26.
	//   spawn:     greedy list scheduling in order, like dynamic:1 → 18.
	tests := []struct {
		sched string
		want  float64
	}{
		{"static", 26e6}, {"static:1", 20e6}, {"dynamic:1", 18e6}, {"guided:1", 26e6}, {"spawn", 18e6},
		// static:2: chunks {8,7} {6,5} {4,3} {2,1} dealt round-robin:
		// {8,7,4,3} = 22 and {6,5,2,1} = 14 → 22.
		{"static:2", 22e6},
	}
	for _, tc := range tests {
		got := emu(t, nil, triangular(), 2, tc.sched, machine.Overheads{})
		if got != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.sched, got, tc.want)
		}
	}
}

// fig5 is the paper's Fig. 5 shape: a loop of three unequal iterations,
// each U, L, U with one lock, on a dual core.
func fig5() *tree.Node {
	return tree.Sec("fig5",
		tree.Task("I0", tree.U(6), tree.L(1, 2), tree.U(1)),
		tree.Task("I1", tree.U(1), tree.L(1, 2), tree.U(1)),
		tree.Task("I2", tree.U(1), tree.L(1, 2), tree.U(2)),
	)
}

func TestFig5(t *testing.T) {
	// Serial 9 + 4 + 5 = 18. Two cores.
	//
	// static: worker 0 gets I0, I1; worker 1 gets I2.
	//   w1: U 0-1, L 1-3, U 3-5.
	//   w0: U 0-6, L 6-8 (free since 3), U 8-9; I1: U 9-10, L 10-12,
	//       U 12-13 → 13.
	// static:1: worker 0 gets I0, I2; worker 1 gets I1.
	//   w1: U 0-1, L 1-3, U 3-4.
	//   w0: U 0-6, L 6-8, U 8-9; I2: U 9-10, L 10-12, U 12-14 → 14.
	// dynamic:1: w0 takes I0 and w1 I1 at 0; w1 is done at 4 and takes
	//   I2: U 4-5, L 5-7 (free), U 7-9. w0: U 0-6 asks for the lock at 6
	//   while w1 holds it until 7: waits, L 7-9, U 9-10 → 10.
	tests := []struct {
		sched string
		want  float64
	}{
		{"static", 13}, {"static:1", 14}, {"dynamic:1", 10},
	}
	for _, tc := range tests {
		if got := emu(t, nil, fig5(), 2, tc.sched, machine.Overheads{}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.sched, got, tc.want)
		}
	}
	// The lock wait of dynamic:1 shows on the timeline.
	var spans []emulate.Span
	e := &Emulator{Timeline: &spans}
	emu(t, e, fig5(), 2, "dynamic:1", machine.Overheads{})
	var waits []emulate.Span
	for _, s := range spans {
		if s.Kind == emulate.SpanLockWait {
			waits = append(waits, s)
		}
	}
	if len(waits) != 1 || waits[0].StartNs != 6 || waits[0].EndNs != 7 {
		t.Errorf("lock waits %+v, want one from 6 to 7", waits)
	}
}

// fig6 is a nested loop in the manner of the paper's Fig. 6: Loop1's
// iterations I0 and I2 run nested loops LoopA and LoopB.
func fig6() *tree.Node {
	return tree.Sec("Loop1",
		tree.Task("I0", tree.U(1), tree.Sec("LoopA", tree.Task("A0", tree.U(2)), tree.Task("A1", tree.U(2))), tree.U(1)),
		tree.Task("I1", tree.U(3)),
		tree.Task("I2", tree.Sec("LoopB", tree.Task("B0", tree.U(1)), tree.Task("B1", tree.U(1)))),
	)
}

func TestFig6Order(t *testing.T) {
	// static:1 on two cores: worker 0 (goroutine g0, core 0) runs I0 and
	// I2, worker 1 (core 1) runs I1.
	//   0: g0 runs I0's U on core 0 (0-1); worker 1 runs I1 on core 1 (0-3).
	//   1: g0 forks LoopA: its worker 1 waits for a core; g0 runs A0 (1-3).
	//   3: worker 1 of Loop1 ends (its event came first), core 1 runs
	//      LoopA's worker 1: A1 (3-5). g0 waits at LoopA's join; core 0
	//      idles.
	//   5: A1 ends, g0 resumes on core 1 and runs I0's last U (5-6).
	//   6: g0 forks LoopB; its worker 1 takes idle core 0: B0 on core 1,
	//      B1 on core 0 (6-7). Loop1 ends at 7.
	type step struct {
		name   string
		thread int
		start  float64
	}
	want := []step{{"I0", 0, 0}, {"I1", 1, 0}, {"A0", 0, 1}, {"A1", 1, 3}, {"I0", 1, 5}, {"B1", 0, 6}, {"B0", 1, 6}}
	var spans []emulate.Span
	e := &Emulator{Timeline: &spans}
	if got := emu(t, e, fig6(), 2, "static:1", machine.Overheads{}); got != 7 {
		t.Errorf("Fig. 6 tree: %v, want 7", got)
	}
	var got []step
	for _, s := range spans {
		if s.Kind == emulate.SpanTask {
			got = append(got, step{s.Name, s.Thread, s.StartNs})
		}
	}
	slices.SortStableFunc(got, func(a, b step) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		return a.thread - b.thread
	})
	if !slices.Equal(got, want) {
		t.Errorf("order\n got %v\nwant %v", got, want)
	}
}

// fig7 is the paper's Fig. 7: two outer iterations, each a nested loop of
// three tasks of 5.
func fig7() *tree.Node {
	inner := func(name string) *tree.Node {
		return tree.Task(name, tree.Sec(name+"-loop", tree.Task("a", tree.U(5)), tree.Task("b", tree.U(5)), tree.Task("c", tree.U(5))))
	}
	return tree.Sec("outer", inner("A"), inner("B"))
}

func TestFig7(t *testing.T) {
	// Serial 30. With spawn, the six inner tasks share both cores: 15,
	// speedup 2.0 (the paper's FF said 1.5). The worksharing schedules
	// also give 15 here: each inner team's second worker waits for a core
	// and gets the one its blocked encountering goroutine frees.
	for _, s := range []string{"spawn", "static", "static:1", "dynamic:1", "guided:1"} {
		got := emu(t, nil, fig7(), 2, s, machine.Overheads{})
		if got != 15 {
			t.Errorf("%s: %v, want 15 (speedup 2.0)", s, got)
		}
	}
	res, err := emulate.Predict(New(), tree.New(fig7()), 2, sched(t, "spawn"), emulate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Speedup != 2 {
		t.Errorf("speedup %v, want 2", res.Speedup)
	}
}

func TestLocksFIFO(t *testing.T) {
	// Four workers; T0 holds lock 7 from 0 to 10. The others ask at 3
	// (T1), 1 (T2) and 2 (T3) and get it in that order of time: T2
	// 10-11, T3 11-12 (then U 12-22), T1 12-13 (then U 13-18) → 22.
	// (By worker order it would be T1 10-11, T2, T3 12-13 → 23.)
	sec := tree.Sec("fifo",
		tree.Task("T0", tree.L(7, 10)),
		tree.Task("T1", tree.U(3), tree.L(7, 1), tree.U(5)),
		tree.Task("T2", tree.U(1), tree.L(7, 1)),
		tree.Task("T3", tree.U(2), tree.L(7, 1), tree.U(10)),
	)
	var spans []emulate.Span
	e := &Emulator{Timeline: &spans}
	if got := emu(t, e, sec, 4, "static", machine.Overheads{}); got != 22 {
		t.Errorf("got %v, want 22", got)
	}
	var order []string
	for _, s := range spans {
		if s.Kind == emulate.SpanLock {
			order = append(order, fmt.Sprintf("%s@%v", s.Name, s.StartNs))
		}
	}
	want := []string{"T0 lock 7@0", "T2 lock 7@10", "T3 lock 7@11", "T1 lock 7@12"}
	slices.Sort(order)
	slices.Sort(want)
	if !slices.Equal(order, want) {
		t.Errorf("lock spans %v, want %v", order, want)
	}
	// Different lock ids do not wait for each other.
	two := tree.Sec("two", tree.Task("a", tree.L(1, 5)), tree.Task("b", tree.L(2, 5)), tree.Task("c", tree.L(1, 5)))
	if got := emu(t, nil, two, 3, "static", machine.Overheads{}); got != 10 {
		t.Errorf("two locks: %v, want 10", got)
	}
}

func TestSerialAtOneThread(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 30; i++ {
		sec := randSec(rng, 0)
		want := float64(tree.Work(sec))
		for _, s := range allSchedules {
			if got := emu(t, nil, sec, 1, s, machine.Overheads{}); got != want {
				t.Fatalf("tree %d, %s: %v at one thread, want the serial %v", i, s, got, want)
			}
		}
	}
}

func TestManyThreads(t *testing.T) {
	var tasks []*tree.Node
	for i := 0; i < 2000; i++ {
		tasks = append(tasks, tree.Task("t", tree.U(1000)))
	}
	sec := tree.Sec("wide", tasks...)
	tests := []struct {
		sched string
		want  float64
	}{
		{"static", 2000}, {"static:1", 2000}, {"dynamic:1", 2000}, {"guided:1", 2000}, {"spawn", 2000},
		{"static:4", 4000},
	}
	for _, tc := range tests {
		if got := emu(t, nil, sec, 1024, tc.sched, machine.Overheads{}); got != tc.want {
			t.Errorf("%s at 1024: %v, want %v", tc.sched, got, tc.want)
		}
	}
	// Fewer tasks than threads: never more workers than tasks; chunks
	// of two or more put both tasks on one worker.
	small := tree.Sec("small", tree.Task("a", tree.U(5)), tree.Task("b", tree.U(3)))
	for _, s := range allSchedules {
		want := 5.0
		if s == "static:3" || s == "dynamic:2" || s == "guided:2" {
			want = 8
		}
		if got := emu(t, nil, small, 1024, s, machine.Overheads{}); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}

// span returns lower bounds of n's parallel time: its critical path.
func spanOf(n *tree.Node) float64 {
	switch n.Kind {
	case tree.KindU, tree.KindL:
		return float64(n.Len) * float64(n.Reps())
	case tree.KindTask:
		var s float64
		for _, c := range n.Children {
			s += spanOf(c)
		}
		return s * float64(n.Reps())
	case tree.KindSec:
		var lead, most float64
		seenTask := false
		for _, c := range n.Children {
			if c.Kind == tree.KindTask {
				seenTask = true
				most = max(most, spanOf(c)/float64(c.Reps()))
			} else if !seenTask {
				lead += spanOf(c)
			}
		}
		return (lead + most) * float64(n.Reps())
	}
	return 0
}

// lockWork adds up L lengths per lock id.
func lockWork(n *tree.Node, reps float64, m map[int]float64) {
	r := reps * float64(n.Reps())
	if n.Kind == tree.KindL {
		m[n.Lock] += float64(n.Len) * r
	}
	for _, c := range n.Children {
		lockWork(c, r, m)
	}
}

// quicksort builds a recursive tree like a parallel quicksort of n
// elements: partition (U), then a section of two tasks sorting the two
// halves, down to a cutoff.
func quicksort(rng *rand.Rand, n int64) *tree.Node {
	if n <= 64 {
		return tree.U(n * 10)
	}
	left := n/4 + rng.Int64N(n/2)
	return tree.Sec("qs",
		tree.Task("lo", tree.U(n), qsBody(rng, left)),
		tree.Task("hi", qsBody(rng, n-left)),
	)
}

func qsBody(rng *rand.Rand, n int64) *tree.Node {
	q := quicksort(rng, n)
	if q.Kind == tree.KindU {
		return q
	}
	return q
}

func TestBoundsNestedRecursive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var secs []*tree.Node
	for i := 0; i < 20; i++ {
		secs = append(secs, randSec(rng, 0))
	}
	secs = append(secs, tree.Sec("top", tree.Task("root", tree.U(100), quicksort(rng, 5000))), fig6(), fig7())
	for i, sec := range secs {
		work := float64(tree.Work(sec))
		cp := spanOf(sec)
		locks := map[int]float64{}
		lockWork(sec, 1, locks)
		for _, threads := range []int{1, 2, 3, 4, 16} {
			lb := max(cp, work/float64(threads))
			for _, w := range locks {
				lb = max(lb, w)
			}
			for _, s := range allSchedules {
				got := emu(t, nil, sec, threads, s, machine.Overheads{})
				if got < lb-1e-6 || got > work+1e-6 {
					t.Errorf("tree %d, %s at %d: %v outside [%v, %v]", i, s, threads, got, lb, work)
				}
			}
		}
	}
}

// randSec builds a random section with runs, locks and nested sections.
func randSec(rng *rand.Rand, depth int) *tree.Node {
	sec := &tree.Node{Kind: tree.KindSec, Name: fmt.Sprintf("s%d", depth), Count: 1, Nowait: rng.IntN(8) == 0}
	if rng.IntN(3) == 0 {
		sec.Children = append(sec.Children, tree.Run(1+rng.Int64N(2), tree.U(rng.Int64N(50))))
	}
	for n := 1 + rng.IntN(6); n > 0; n-- {
		task := &tree.Node{Kind: tree.KindTask, Name: fmt.Sprintf("t%d.%d", depth, n), Count: 1 + rng.Int64N(4)}
		for m := 1 + rng.IntN(3); m > 0; m-- {
			switch k := rng.IntN(10); {
			case k < 5:
				task.Children = append(task.Children, tree.Run(1+rng.Int64N(3), tree.U(1+rng.Int64N(100))))
			case k < 8:
				task.Children = append(task.Children, tree.Run(1+rng.Int64N(2), tree.L(rng.IntN(3), 1+rng.Int64N(30))))
			default:
				if depth < 2 {
					task.Children = append(task.Children, tree.Run(1+rng.Int64N(2), randSec(rng, depth+1)))
				}
			}
		}
		sec.Children = append(sec.Children, task)
		if rng.IntN(4) == 0 {
			sec.Children = append(sec.Children, tree.U(rng.Int64N(20)))
		}
	}
	return sec
}

// expand returns a copy of n with every run written out (Count 1).
func expand(n *tree.Node) []*tree.Node {
	c := *n
	c.Count = 1
	c.Children = nil
	for _, ch := range n.Children {
		c.Children = append(c.Children, expand(ch)...)
	}
	out := make([]*tree.Node, n.Reps())
	for i := range out {
		cp := c
		out[i] = &cp
	}
	return out
}

func TestRunsEqualExpanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ov := machine.Overheads{ForkNs: 7, JoinNs: 3, ChunkNs: 1, SpawnNs: 2, LockNs: 1, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40}
	trees := 20
	if testing.Short() {
		trees = 6
	}
	for i := 0; i < trees; i++ {
		sec := randSec(rng, 0)
		exp := expand(sec)[0]
		for _, threads := range []int{1, 2, 3, 8} {
			for _, s := range allSchedules {
				for _, o := range []machine.Overheads{{}, ov} {
					a := emu(t, nil, sec, threads, s, o)
					b := emu(t, nil, exp, threads, s, o)
					if a != b {
						t.Fatalf("tree %d, %s at %d, overheads %v: runs %v, expanded %v", i, s, threads, o != (machine.Overheads{}), a, b)
					}
				}
			}
		}
	}
}

func TestOverheadsCharged(t *testing.T) {
	four := tree.Sec("four", tree.Run(4, tree.Task("t", tree.U(100))))
	three := tree.Sec("three", tree.Run(3, tree.Task("t", tree.U(100))))
	tests := []struct {
		name    string
		sec     *tree.Node
		sched   string
		ov      machine.Overheads
		want    float64
		counts  [6]int // fork, join, chunk, spawn, lock, handoff
		threads int
	}{
		{
			// Fork 0-10; both workers fetch at 10 (chunk 10-11) and run
			// 11-111, fetch again (111-112), run 112-212; worker 0 finds
			// nothing at 212 and waits; worker 1 ends at 212 and wakes
			// it: join 212-217.
			name: "dynamic", sec: four, sched: "dynamic:1", threads: 2,
			ov:     machine.Overheads{ForkNs: 10, JoinNs: 5, ChunkNs: 1},
			want:   217,
			counts: [6]int{1, 1, 4, 0, 0, 0},
		},
		{
			// The counter's cache line moves: fork 0-10; the first
			// fetch at 10 costs 1 (10-11, run 11-111), the second, from
			// the other core, 21 (10-31, run 31-131); each later one
			// follows the other worker's: 111-132 run 132-232, 131-152
			// run 152-252; join 252-257.
			name: "dynamic, counter migrating", sec: four, sched: "dynamic:1", threads: 2,
			ov:     machine.Overheads{ForkNs: 10, JoinNs: 5, ChunkNs: 1, ChunkMigrateNs: 20},
			want:   257,
			counts: [6]int{1, 1, 4, 0, 0, 0},
		},
		{
			// Static: no chunk costs. Fork 0-10, blocks of 200 each:
			// 10-210, join 210-215.
			name: "static", sec: four, sched: "static", threads: 2,
			ov:     machine.Overheads{ForkNs: 10, JoinNs: 5, ChunkNs: 1},
			want:   215,
			counts: [6]int{1, 1, 0, 0, 0, 0},
		},
		{
			// One thread: the loop runs inline, nothing is charged.
			name: "one thread", sec: four, sched: "dynamic:1", threads: 1,
			ov:     machine.Overheads{ForkNs: 10, JoinNs: 5, ChunkNs: 1},
			want:   400,
			counts: [6]int{0, 0, 0, 0, 0, 0},
		},
		{
			// Spawn 0-10, T0 runs on core 1 10-110; spawns 10-20, 20-30
			// queue T1, T2; g0 waits at 30 and core 0 runs T1 30-130;
			// core 1 runs T2 110-210; join 210-215.
			name: "spawn", sec: three, sched: "spawn", threads: 2,
			ov:     machine.Overheads{SpawnNs: 10, JoinNs: 5, ForkNs: 1000},
			want:   215,
			counts: [6]int{0, 1, 0, 3, 0, 0},
		},
		{
			// Lock costs: T0 holds the lock 0-(2+10); T1 asks at 1,
			// within the spin window (Default's 2900 ns): it spins and
			// sees the lock free at its first check, a check interval
			// (2900/4) after its request: 1 + 725; no hand-off; lock
			// 726-728, L 728-738.
			name: "short lock wait", sec: tree.Sec("l", tree.Task("a", tree.L(1, 10)), tree.Task("b", tree.U(1), tree.L(1, 10))),
			sched: "static", threads: 2,
			ov:     machine.Overheads{LockNs: 2, LockHandoffNs: 3},
			want:   738,
			counts: [6]int{1, 1, 0, 0, 2, 0},
		},
		{
			// T0 holds the lock 0-(2+4000); T1 asks at 1, parks; the
			// Unlock at 4002 wakes it, it runs 3 later and finds the lock
			// free: lock 4005-4007, L 4007-4017.
			name: "long lock wait", sec: tree.Sec("l", tree.Task("a", tree.L(1, 4000)), tree.Task("b", tree.U(1), tree.L(1, 10))),
			sched: "static", threads: 2,
			ov:     machine.Overheads{LockNs: 2, LockHandoffNs: 3},
			want:   4017,
			counts: [6]int{1, 1, 0, 0, 2, 1},
		},
		{
			// Nested: one outer fork and join, two inner ones.
			name: "nested", sec: fig7(), sched: "static", threads: 2,
			ov:     machine.Overheads{ForkNs: 1, JoinNs: 1},
			counts: [6]int{3, 3, 0, 0, 0, 0},
		},
	}
	for _, tc := range tests {
		r := emulateSec(t, tc.sec, tc.threads, tc.sched, tc.ov, 0)
		got := [6]int{r.nFork, r.nJoin, r.nChunk, r.nSpawn, r.nLock, r.nHandoff}
		if got != tc.counts {
			t.Errorf("%s: charged fork, join, chunk, spawn, lock, handoff %v times, want %v", tc.name, got, tc.counts)
		}
		if tc.want != 0 && r.parallel != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

func TestWakeLatency(t *testing.T) {
	// Two tasks of 100 on two cores. The second worker's core wakes W
	// after the fork; if W < 100 it runs 50..., else worker 0 blocks at
	// the join at 100 and runs it itself: time 100 + min(W, 100).
	sec := tree.Sec("two", tree.Task("a", tree.U(100)), tree.Task("b", tree.U(100)))
	for _, w := range []float64{0, 50, 99, 100, 150, 1e6} {
		ov := machine.Overheads{WakeP50Ns: w, WakeP90Ns: w}
		want := 100 + math.Min(w, 100)
		if got := emu(t, nil, sec, 2, "static", ov); got != want {
			t.Errorf("wake %v: %v, want %v", w, got, want)
		}
	}
	// A spread: the average over the quantiles.
	ov := machine.Overheads{WakeP50Ns: 50, WakeP90Ns: 400}
	lat := wakeLatencies(ov, 5)
	if len(lat) != 5 || math.Abs(lat[2]-50) > 1e-9 || math.Abs(lat[4]-400) > 1e-6 {
		t.Fatalf("latencies %v: want 5 with p50 50 and p90 400 among them", lat)
	}
	var want float64
	for _, l := range lat {
		want += 100 + math.Min(l, 100)
	}
	want /= 5
	if got := emu(t, nil, sec, 2, "static", ov); math.Abs(got-want) > 1e-9 {
		t.Errorf("spread: %v, want %v", got, want)
	}
	// No wake-up, no averaging: one thread.
	if got := emu(t, nil, sec, 1, "static", ov); got != 200 {
		t.Errorf("one thread: %v, want 200", got)
	}
}

func TestRunnext(t *testing.T) {
	// Wake-up latency W = 10 and runnext back-off R = 50, one sample.
	ov := machine.Overheads{WakeP50Ns: 10, WakeP90Ns: 10, RunnextNs: 50}
	two := func(a, b int64) *tree.Node {
		return tree.Sec("two", tree.Task("a", tree.U(a)), tree.Task("b", tree.U(b)))
	}
	three := tree.Sec("three", tree.Task("a", tree.U(1000)), tree.Task("b", tree.U(1000)), tree.Task("c", tree.U(1000)))
	tests := []struct {
		name    string
		sec     *tree.Node
		threads int
		sched   string
		ov      machine.Overheads
		want    float64
	}{
		// A two-thread team's one worker waits in the forking core's
		// runnext: the woken core backs off and takes it at W+R.
		{"team", two(1000, 1000), 2, "static", ov, 60 + 1000},
		// Without a back-off it is the wake-up alone.
		{"team, no back-off", two(1000, 1000), 2, "static", machine.Overheads{WakeP50Ns: 10, WakeP90Ns: 10}, 10 + 1000},
		// Worker 0 is done at 20, before W+R, and runs the worker
		// itself at the join: 20 + 1000.
		{"team, owner first", two(20, 1000), 2, "static", ov, 20 + 1000},
		// Spawn: the spawner waits at once and its core takes the
		// first task; the second is no core's runnext any more (the
		// core has started another goroutine since): W.
		{"spawn", two(1000, 1000), 2, "spawn", ov, 10 + 1000},
		// Three threads: worker 1 is queued behind worker 2, which is
		// in the runnext: one woken core takes worker 1 at W, the
		// other backs off and takes worker 2 at W+R.
		{"team of three", three, 3, "static", ov, 60 + 1000},
		// Spawn on three cores: the spawner's core starts the first
		// task when the spawner waits, which ends the pin of the last
		// one: both woken cores take theirs at W.
		{"spawn, three", three, 3, "spawn", ov, 10 + 1000},
	}
	for _, tc := range tests {
		if got := emu(t, nil, tc.sec, tc.threads, tc.sched, tc.ov); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWakeLatencies(t *testing.T) {
	tests := []struct {
		ov   machine.Overheads
		k    int
		want int
	}{
		{machine.Overheads{}, 5, 1},
		{machine.Overheads{WakeP50Ns: 10}, 5, 1},
		{machine.Overheads{WakeP50Ns: 10, WakeP90Ns: 5}, 5, 1},
		{machine.Overheads{WakeP50Ns: 10, WakeP90Ns: 100}, 1, 1},
		{machine.Overheads{WakeP50Ns: 10, WakeP90Ns: 100}, 0, DefaultWakeSamples},
		{machine.Overheads{WakeP50Ns: 10, WakeP90Ns: 100}, 4, 4},
		{machine.Overheads{WakeP50Ns: math.NaN(), WakeP90Ns: 100}, 4, 1},
	}
	for _, tc := range tests {
		got := wakeLatencies(tc.ov, tc.k)
		if len(got) != tc.want {
			t.Errorf("%+v k=%d: %v, want %d values", tc.ov, tc.k, got, tc.want)
		}
		for i, v := range got {
			if !(v >= 0) || (i > 0 && v < got[i-1]) {
				t.Errorf("%+v: latencies %v not increasing and non-negative", tc.ov, got)
			}
		}
	}
}

func TestBurdenAndNowait(t *testing.T) {
	sec := triangular()
	r, err := New().Section(sec, 2, sched(t, "static"), 1.5, emulate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.ParallelNs != 39e6 {
		t.Errorf("burden 1.5: %v, want 39e6", r.ParallelNs)
	}
	if r.BusyNs != 54e6 || r.IdleNs != 24e6 {
		t.Errorf("busy %v idle %v, want 54e6 and 24e6", r.BusyNs, r.IdleNs)
	}
	// nowait at top level: no join is charged; the time is the last
	// goroutine's end.
	nw := tree.SecNowait("nw", tree.Task("a", tree.U(100)), tree.Task("b", tree.U(300)))
	ov := machine.Overheads{JoinNs: 50}
	if got := emu(t, nil, nw, 2, "static", ov); got != 300 {
		t.Errorf("nowait: %v, want 300", got)
	}
	w := tree.Sec("w", tree.Task("a", tree.U(100)), tree.Task("b", tree.U(300)))
	if got := emu(t, nil, w, 2, "static", ov); got != 350 {
		t.Errorf("with barrier: %v, want 350", got)
	}
	// Nested nowait: the outer task goes on while the inner team runs.
	//   outer task a: inner nowait loop {x 100, y 100} then U 100.
	//   2 cores, static: g0 forks outer (worker 1 runs b: 10), then the
	//   inner loop: g0 runs x 0-100 then U 100-200; the inner worker runs
	//   y on core 1 at 10 (after b) until 110. End 200 (with a barrier on
	//   the inner loop it would be 110 + 100 = 210).
	inner := func(nowait bool) *tree.Node {
		s := tree.Sec("in", tree.Task("x", tree.U(100)), tree.Task("y", tree.U(100)))
		s.Nowait = nowait
		return tree.Sec("out", tree.Task("a", s, tree.U(100)), tree.Task("b", tree.U(10)))
	}
	if got := emu(t, nil, inner(true), 2, "static", machine.Overheads{}); got != 200 {
		t.Errorf("nested nowait: %v, want 200", got)
	}
	if got := emu(t, nil, inner(false), 2, "static", machine.Overheads{}); got != 210 {
		t.Errorf("nested barrier: %v, want 210", got)
	}
}

func TestSectionOwnCode(t *testing.T) {
	// Leading U before the fork (serial), other section U on worker 0.
	sec := tree.Sec("s", tree.U(10), tree.Task("a", tree.U(100)), tree.U(5), tree.Task("b", tree.U(100)))
	if got := emu(t, nil, sec, 2, "static", machine.Overheads{}); got != 115 {
		t.Errorf("worksharing: %v, want 115", got)
	}
	// spawn: in order: 10, spawn a, 5, spawn b → b starts at 15.
	if got := emu(t, nil, sec, 2, "spawn", machine.Overheads{}); got != 115 {
		t.Errorf("spawn: %v, want 115", got)
	}
	empty := tree.Sec("e", tree.U(10))
	for _, s := range allSchedules {
		if got := emu(t, nil, empty, 4, s, machine.Overheads{ForkNs: 100, JoinNs: 100}); got != 10 {
			t.Errorf("%s, no tasks: %v, want 10", s, got)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := triangular()
	tests := []struct {
		name    string
		sec     *tree.Node
		threads int
		sched   par.Schedule
		burden  float64
	}{
		{"nil", nil, 2, par.Schedule{}, 1},
		{"not a section", tree.Task("t"), 2, par.Schedule{}, 1},
		{"zero threads", good, 0, par.Schedule{}, 1},
		{"too many threads", good, MaxThreads + 1, par.Schedule{}, 1},
		{"bad chunk", good, 2, par.Schedule{Policy: par.Dynamic}, 1},
		{"bad policy", good, 2, par.Schedule{Policy: 99}, 1},
		{"bad burden", good, 2, par.Schedule{}, math.NaN()},
		{"task in task", tree.Sec("s", tree.Task("t", tree.Task("u"))), 2, par.Schedule{}, 1},
		{"L in section", tree.Sec("s", tree.L(1, 2)), 2, par.Schedule{}, 1},
		{"bad nested", tree.Sec("s", tree.Task("t", tree.Sec("in", tree.Sec("x")))), 2, par.Schedule{}, 1},
		{"negative", tree.Sec("s", tree.Task("t", tree.U(-5))), 2, par.Schedule{}, 1},
		{"negative L", tree.Sec("s", tree.Task("t", tree.L(1, -5))), 2, par.Schedule{}, 1},
		{"negative in run", tree.Sec("s", tree.Run(3, tree.Task("t", tree.U(-5)))), 2, par.Schedule{}, 1},
		{"nil in task", tree.Sec("s", tree.Task("t", nil)), 2, par.Schedule{}, 1},
		{"nil task", tree.Sec("s", nil), 2, par.Schedule{}, 1},
	}
	for _, tc := range tests {
		if _, err := New().Section(tc.sec, tc.threads, tc.sched, tc.burden, emulate.Options{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestTrace(t *testing.T) {
	tr := tree.New(tree.U(1000), tree.Run(3, fig5()), tree.U(500))
	spans, res, err := New().Trace(tr, 2, sched(t, "dynamic:1"), emulate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 1000 + 3 × 10 + 500.
	if res.ParallelNs != 1530 {
		t.Errorf("parallel %v, want 1530", res.ParallelNs)
	}
	var end float64
	kinds := map[string]int{}
	for _, s := range spans {
		end = max(end, s.EndNs)
		kinds[s.Kind]++
		if s.Thread < 0 || s.Thread > 1 || s.EndNs < s.StartNs {
			t.Errorf("bad span %+v", s)
		}
	}
	if end != 1530 {
		t.Errorf("timeline ends at %v, want 1530", end)
	}
	if kinds[emulate.SpanSerial] != 2 || kinds[SpanRepeat] != 1 || kinds[emulate.SpanLock] != 3 || kinds[emulate.SpanLockWait] != 1 {
		t.Errorf("span kinds %v", kinds)
	}
}

func TestReuseIsDeterministic(t *testing.T) {
	// One Emulator reuses its working memory; its answers must not
	// depend on what it emulated before.
	rng := rand.New(rand.NewPCG(11, 12))
	shared := New()
	ov := machine.Overheads{ForkNs: 7, JoinNs: 3, ChunkNs: 1, SpawnNs: 2, LockNs: 1, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40}
	for i := 0; i < 15; i++ {
		sec := randSec(rng, 0)
		for _, threads := range []int{2, 5} {
			for _, s := range allSchedules {
				a := emu(t, shared, sec, threads, s, ov)
				b := emu(t, &Emulator{}, sec, threads, s, ov)
				if a != b {
					t.Fatalf("tree %d, %s at %d: reused %v, fresh %v", i, s, threads, a, b)
				}
			}
		}
	}
}

// mustCompile returns sec's compact copy.
func mustCompile(t testing.TB, sec *tree.Node) *prog {
	t.Helper()
	p, err := compile(sec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// emulateSec emulates sec once on threads under schedule sched with
// overheads ov and wake-up latency wake, no timeline, as the hand-worked
// tests do; an error fails the test.
func emulateSec(t testing.TB, sec *tree.Node, threads int, sched string, ov machine.Overheads, wake float64) sectionRun {
	t.Helper()
	r, err := emulateOnce(nil, mustCompile(t, sec), threads, rule(t, sched), 1, ov, wake, nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSectionsRotate checks Sections' wake-up sample rotation on the
// two-task section of TestWakeLatency, whose time with latency W is
// 100 + min(W, 100): RotateMin·K runs of one name take every sample
// RotateMin times (0..4, 4..0, twice), so their total is exactly the
// per-run average times the runs; one run fewer goes back to averaging
// each run; a lone run of another name and a run with Count 2 are
// averaged too.
func TestSectionsRotate(t *testing.T) {
	ov := machine.Overheads{WakeP50Ns: 50, WakeP90Ns: 400}
	lat := wakeLatencies(ov, DefaultWakeSamples)
	var avg float64
	for _, l := range lat {
		avg += 100 + math.Min(l, 100)
	}
	avg /= float64(len(lat))
	two := func(name string) *tree.Node {
		return tree.Sec(name, tree.Task("a", tree.U(100)), tree.Task("b", tree.U(100)))
	}
	k := len(lat)
	for _, n := range []int{RotateMin*k - 1, RotateMin * k} {
		var secs []*tree.Node
		for range n {
			secs = append(secs, two("step"))
		}
		secs = append(secs, two("other"), tree.Run(2, two("step")))
		burdens := make([]float64, len(secs))
		for i := range burdens {
			burdens[i] = 1
		}
		got, err := New().Sections(secs, 2, sched(t, "static"), burdens, nil, emulate.Options{Overheads: ov})
		if err != nil {
			t.Fatal(err)
		}
		var total float64
		for i, s := range got[:n] {
			want := avg
			if n == RotateMin*k {
				want = 100 + math.Min(lat[rotated(i, k)], 100)
			}
			if math.Abs(s.ParallelNs-want) > 1e-9 {
				t.Errorf("%d runs: run %d took %v, want %v", n, i, s.ParallelNs, want)
			}
			total += s.ParallelNs
		}
		if math.Abs(total-float64(n)*avg) > 1e-6 {
			t.Errorf("%d runs: total %v, want %v", n, total, float64(n)*avg)
		}
		for _, s := range got[n:] {
			if math.Abs(s.ParallelNs-avg) > 1e-9 {
				t.Errorf("%d runs: section %q (count %d) took %v, want the average %v", n, s.Name, s.Count, s.ParallelNs, avg)
			}
		}
	}
	if lat[0] >= 100 || lat[k-1] <= lat[0] {
		t.Fatalf("latencies %v: the samples must give different times", lat)
	}
	var order []int
	for i := range 2*k + 2 {
		order = append(order, rotated(i, k))
	}
	if want := []int{0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 0, 1}; !slices.Equal(order, want) {
		t.Errorf("rotation order %v, want %v", order, want)
	}
}

func TestNonPositiveChargesAreZero(t *testing.T) {
	// Costs of fork, join, chunk, spawn and lock below zero charge
	// nothing, in the event loop and in the closed forms alike.
	sec := tree.Sec("s", tree.Run(40, tree.Task("t", tree.U(3000), tree.L(1, 1000), tree.U(2000))),
		tree.Task("last", tree.U(7000)))
	neg := machine.Overheads{ForkNs: -100, JoinNs: -5000, ChunkNs: -17, SpawnNs: -420, LockNs: -12}
	for _, s := range allSchedules {
		for _, threads := range []int{1, 2, 3} {
			if got, want := emu(t, nil, sec, threads, s, neg), emu(t, nil, sec, threads, s, machine.Overheads{}); got != want {
				t.Errorf("%s, %d threads: %g ns with negative costs, want %g as with none", s, threads, got, want)
			}
		}
	}
}
