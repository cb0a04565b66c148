package syn

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// fixedWalk keeps unit tests from measuring walk costs.
var fixedWalk = emulate.Options{Walk: machine.Walk{NodeNs: 1, CallNs: 1, SpinNs: 1, Clock: spin.Clock()}}

var allSchedules = []par.Schedule{
	{Policy: par.Static},
	{Policy: par.StaticChunk, Chunk: 1},
	{Policy: par.Dynamic, Chunk: 2},
	{Policy: par.Guided, Chunk: 1},
	{Policy: par.Spawn},
}

// nestedTree is a small section with locks, a nested section and the
// section's own U nodes before and after its tasks.
func nestedTree() *tree.Node {
	return tree.Sec("outer",
		tree.U(500),
		tree.Run(3, tree.Task("a", tree.U(1000), tree.L(1, 300), tree.Run(2, tree.L(2, 100)))),
		tree.Task("b", tree.U(200), tree.Run(2, tree.Sec("inner", tree.Run(4, tree.Task("c", tree.U(700), tree.L(1, 50)))))),
		tree.U(400),
	)
}

func TestTooManyThreads(t *testing.T) {
	e := New(Options{MaxThreads: 2})
	if e.MaxThreads() != 2 {
		t.Fatalf("MaxThreads = %d, want 2", e.MaxThreads())
	}
	_, err := e.Section(tree.Sec("s", tree.Task("t", tree.U(10))), 4, par.Schedule{Policy: par.Static}, 1, fixedWalk)
	if !errors.Is(err, ErrTooManyThreads) {
		t.Fatalf("error %v does not match ErrTooManyThreads", err)
	}
	if want := "syn predicts up to 2 threads on this machine (asked for 4)"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	// Through Predict, the sentinel still matches.
	_, err = emulate.Predict(e, tree.New(tree.Sec("s", tree.Task("t", tree.U(10)))), 3, par.Schedule{Policy: par.Static}, fixedWalk)
	if !errors.Is(err, ErrTooManyThreads) {
		t.Errorf("Predict error %v does not match ErrTooManyThreads", err)
	}
	var _ emulate.Limited = e
	var _ emulate.SectionEmulator = e
}

func TestDefaults(t *testing.T) {
	e := New(Options{})
	if e.MaxThreads() != runtime.NumCPU() || e.opt.Repeats != 5 || e.opt.Statistic != Median {
		t.Errorf("defaults: MaxThreads %d Repeats %d Statistic %v", e.MaxThreads(), e.opt.Repeats, e.opt.Statistic)
	}
	if e.Name() != "syn" {
		t.Errorf("Name = %q", e.Name())
	}
}

func TestSectionRejectsBadInput(t *testing.T) {
	e := New(Options{Repeats: 1, MaxThreads: 2})
	bad := &tree.Node{Kind: tree.KindSec, Name: "cycle", Count: 1}
	bad.Children = []*tree.Node{tree.Task("t", bad)}
	tests := []struct {
		name    string
		sec     *tree.Node
		threads int
		burden  float64
		want    string
	}{
		{"nil", nil, 1, 1, "no section"},
		{"zero threads", tree.Sec("s"), 0, 1, "at least 1"},
		{"not a section", tree.U(5), 1, 1, "want a Sec"},
		{"L in section", tree.Sec("s", tree.L(1, 5)), 1, 1, "holds a L node"},
		{"task in task", tree.Sec("s", tree.Task("t", tree.Task("u"))), 1, 1, "holds a Task node"},
		{"negative length", tree.Sec("s", tree.Task("t", tree.U(-3))), 1, 1, "negative length"},
		{"nil child", tree.Sec("s", tree.Task("t", nil)), 1, 1, "nil child"},
		{"zero burden", tree.Sec("s"), 1, 0, "burden"},
		{"NaN burden", tree.Sec("s"), 1, math.NaN(), "burden"},
		{"cycle", bad, 1, 1, "nested more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Section(tc.sec, tc.threads, par.Schedule{Policy: par.Static}, tc.burden, fixedWalk)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestTaskIndex(t *testing.T) {
	sp, err := compile(tree.Sec("s",
		tree.Run(3, tree.Task("a", tree.U(1))),
		tree.Task("b", tree.U(2)),
		tree.U(9),
		tree.Run(2, tree.Task("c", tree.U(3))),
	), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 1, 1, 2, 3, 3}
	if sp.n != len(want) {
		t.Fatalf("n = %d, want %d", sp.n, len(want))
	}
	for i, w := range want {
		if got := sp.task(i).items[0].ns; got != w {
			t.Errorf("task(%d) has length %d, want %d", i, got, w)
		}
	}
	if len(sp.pre) != 0 || len(sp.post) != 1 || sp.post[0] != 9 {
		t.Errorf("pre %v post %v, want [] [9]", sp.pre, sp.post)
	}
	if sp.work != 3+2+9+6 {
		t.Errorf("work = %d, want 20", sp.work)
	}
}

func TestCompileBurdenAndSharing(t *testing.T) {
	shared := tree.Task("t", tree.U(100), tree.L(7, 10))
	sec := tree.Sec("s", shared, shared, tree.Task("u", tree.Sec("in", shared)), shared)
	sp, err := compile(sec, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.task(0); got != sp.task(3) {
		t.Error("a task shared in the tree got two plans")
	}
	if ns := sp.task(0).items[0].ns; ns != 150 {
		t.Errorf("burdened U length %d, want 150", ns)
	}
	inner := sp.task(2).items[0].sec
	if inner.task(0).items[1].lk != sp.task(0).items[1].lk {
		t.Error("lock 7 got two mutexes")
	}
	if want := int64(4 * (150 + 15)); sp.work != want {
		t.Errorf("work %d, want %d", sp.work, want)
	}
}

// TestReplayIndexedHolds checks that a plain hold and an indexed one of
// the same lock share its mutex but not their data: the plain ones write
// the first line, and the indexed ones, counted on the lock's line,
// spread over all eight.
func TestReplayIndexedHolds(t *testing.T) {
	sec := tree.Sec("s", tree.Run(64, tree.Task("t", tree.U(1), tree.L(3, 1), tree.IndexedL(3, 1))))
	sp, err := compile(sec, 1)
	if err != nil {
		t.Fatal(err)
	}
	plain, indexed := sp.task(0).items[1], sp.task(0).items[2]
	if plain.indexed || !indexed.indexed || plain.lk != indexed.lk {
		t.Fatalf("items %+v and %+v: want a plain and an indexed hold of one lock", plain, indexed)
	}
	var a acct
	(&replayer{sched: par.Schedule{Policy: par.Static}, threads: 1, walk: costs{machine.Walk{}, 1}}).sec(sp, &a)
	lk := plain.lk
	if lk.slot != 64 {
		t.Errorf("%d indexed holds counted, want 64", lk.slot)
	}
	var sum int64
	for line := range 8 {
		n := lk.data[line*8]
		if line == 0 {
			n -= 64 // the plain holds'
		}
		if n == 0 {
			t.Errorf("no indexed hold wrote line %d", line)
		}
		sum += n
	}
	if sum != 64 {
		t.Errorf("the indexed holds wrote %d times, want 64", sum)
	}
}

// TestReplayVisitsEveryNode checks, with unit walk costs at one thread
// (where every visit lands on the one worker), that a replay visits
// exactly the nodes and calls counts predicts, for every schedule. The
// tree is burdened to zero lengths, so that no spin absorbs any walk and
// all of it is left to subtract.
func TestReplayVisitsEveryNode(t *testing.T) {
	sp, err := compile(nestedTree(), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	nodes, calls, tasks := counts(sp)
	// pre, post: 2; a: 3×(1+1+1+2); b: 1+1+2×(1+ 4×(1+1+1)); calls 2;
	// tasks: a 3, b 1, and its two inner sections' 4 each.
	if nodes != 2+15+2+2*(1+12) || calls != 2 || tasks != 3+1+2*4 {
		t.Fatalf("counts = %v nodes, %v calls, %v tasks", nodes, calls, tasks)
	}
	for _, s := range allSchedules {
		for _, w := range []machine.Walk{{NodeNs: 1}, {CallNs: 1}} {
			var a acct
			(&replayer{sched: s, threads: 1, walk: costs{w, 1}}).sec(sp, &a)
			want := nodes
			if w.CallNs == 1 {
				want = calls
			}
			if a.walk != want {
				t.Errorf("%v walk %+v: accounted %v, want %v", s, w, a.walk, want)
			}
		}
	}
}

// TestSpinsAbsorbWalk checks that U spins absorb the walk run up before
// them and their own cost (SpinNs), that a leaf or a hold too short to
// spin puts the worker ahead by its length, which the next spin makes
// up, and that what is left is the difference (within the dither of the
// last spin), at one thread for every schedule.
func TestSpinsAbsorbWalk(t *testing.T) {
	tests := []struct {
		name           string
		sec            *tree.Node
		nodeNs, spinNs float64
		residual       float64
		spawn          float64 // the residual where every task is a goroutine of its own, if not residual
	}{
		// Each task: visit 3 + U 3 = 6 ns of walk, 10 ns of U: all absorbed.
		{"long leaves", tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(10)))), 3, 0, 0, 0},
		// 6 ns of walk per task, 1 ns of leaf not spun: 4·6 − 4 left.
		{"short leaves", tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(1)))), 3, 0, 20, 0},
		// Locks only: nothing absorbs 2 tasks × (visit + L) = 4 ns.
		{"locks only", tree.Sec("s", tree.Run(2, tree.Task("t", tree.L(1, 5)))), 1, 0, 4, 0},
		// Serial code before the loop absorbs its own visit; the walk of
		// the locks is left.
		{"pre and locks", tree.Sec("s", tree.U(50), tree.Run(2, tree.Task("t", tree.L(1, 5)))), 1, 0, 4, 0},
		// 100 ns leaves spin 100 − 6 − 40 ns: on time after each.
		{"spin cost", tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(100)))), 3, 40, 0, 0},
		// 30 ns leaves cannot spin (30 − 40 < 1): the first is skipped
		// (30 ns ahead), the second spins 30 + 30 − 40, the third is
		// skipped again. Spawned, each task is skipped, on one core.
		{"leaves shorter than a spin", tree.Sec("s", tree.Run(3, tree.Task("t", tree.U(30)))), 0, 40, -30, -90},
		// Two holds of 30 ns cannot spin: 60 ns ahead after the loop,
		// made up by the serial code after it.
		{"holds shorter than a spin", tree.Sec("s", tree.Run(2, tree.Task("t", tree.L(1, 30))), tree.U(200)), 0, 40, 0, 0},
		{"holds shorter than a spin, nothing after", tree.Sec("s", tree.Run(2, tree.Task("t", tree.L(1, 30)))), 0, 40, -60, 0},
	}
	for _, tc := range tests {
		sp, err := compile(tc.sec, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range allSchedules {
			var a acct
			(&replayer{sched: s, threads: 1, walk: costs{machine.Walk{NodeNs: tc.nodeNs, SpinNs: tc.spinNs}, 1}}).sec(sp, &a)
			want := tc.residual
			if s.PerTask() && tc.spawn != 0 {
				want = tc.spawn
			}
			// A spin's request is dithered by up to a quarter of
			// SpinNs either way, and the worker is left that far off;
			// spawned, every task's goroutine is.
			tol := tc.spinNs / 4
			if s.PerTask() {
				tol *= float64(sp.n)
			}
			if math.Abs(a.walk-want) > tol {
				t.Errorf("%s, %v: walk left %v, want %v ± %v", tc.name, s, a.walk, want, tol)
			}
			if a.busy != sp.work {
				t.Errorf("%s, %v: busy %d, want the work %d", tc.name, s, a.busy, sp.work)
			}
		}
	}
}

// TestResidue checks what a team leaves of its members' drifts.
func TestResidue(t *testing.T) {
	tests := []struct {
		sum, most float64
		threads   int
		want      float64
	}{
		{sum: 6, most: 4, threads: 2, want: 4},      // the most loaded member
		{sum: 40, most: 4, threads: 2, want: 20},    // more members than cores
		{sum: 2, most: 4, threads: 2, want: 4},      // one ahead, one behind
		{sum: -60, most: 0, threads: 2, want: -30},  // all ahead
		{sum: -90, most: 0, threads: 1, want: -90},  // all ahead, one core
		{sum: 0, most: 0, threads: 4, want: 0},      // on time
		{sum: -10, most: 5, threads: 2, want: 5},    // one behind counts
		{sum: 100, most: 0.5, threads: 4, want: 25}, // spawn's total
	}
	for _, tc := range tests {
		if got := residue(tc.sum, tc.most, tc.threads); got != tc.want {
			t.Errorf("residue(%v, %v, %d) = %v, want %v", tc.sum, tc.most, tc.threads, got, tc.want)
		}
	}
}

// TestTeamWalkIsMostLoadedWorker checks the paper's rule at two threads:
// a team's walk cost is its most loaded worker's, not the sum.
func TestTeamWalkIsMostLoadedWorker(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	// Zero-length leaves (burden ~0), so that no spin absorbs the walk.
	sp, err := compile(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(10)))), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	// static at 2 threads: each worker visits 2 tasks × 2 nodes.
	var a acct
	(&replayer{sched: par.Schedule{Policy: par.Static}, threads: 2, walk: costs{machine.Walk{NodeNs: 1}, 1}}).sec(sp, &a)
	if a.walk != 4 {
		t.Errorf("team walk %v, want 4 (most loaded worker)", a.walk)
	}
	// spawn at 2 threads: 4 goroutines of 2 nodes; total/threads = 4.
	a = acct{}
	(&replayer{sched: par.Schedule{Policy: par.Spawn}, threads: 2, walk: costs{machine.Walk{NodeNs: 1}, 1}}).sec(sp, &a)
	if a.walk != 4 {
		t.Errorf("spawn walk %v, want 4 (total / threads)", a.walk)
	}
}

// TestSpawnTeamAllocations checks that replaying a spawn section makes
// no heap allocation of its own per task beyond what par's spawn makes
// for each goroutine (its closure): the tasks' accounts are recycled.
func TestSpawnTeamAllocations(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const n = 2000
	sp, err := compile(tree.Sec("s", tree.Run(n, tree.Task("t", tree.U(10)))), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	spawn := &replayer{sched: par.Schedule{Policy: par.Spawn}, threads: 1}
	perTask := testing.AllocsPerRun(5, func() {
		var a acct
		spawn.sec(sp, &a)
	}) / n
	// par's own: the same loop's goroutines with an empty body.
	own := testing.AllocsPerRun(5, func() {
		par.ForWorker(n, 1, spawn.sched, func(_, _ int) {})
	}) / n
	// An allocation per task would add 1; the race detector's sync.Pool
	// drops some of what is put back, which adds a fraction.
	if perTask > own+0.5 {
		t.Errorf("%.2f heap allocations a spawned task, against par's own %.2f", perTask, own)
	}
}

func TestSectionResult(t *testing.T) {
	e := New(Options{Repeats: 3, MaxThreads: 4})
	before := runtime.GOMAXPROCS(0)
	for _, s := range allSchedules {
		for _, threads := range []int{1, 2, 3} {
			got, err := e.Section(nestedTree(), threads, s, 1.25, fixedWalk)
			if err != nil {
				t.Fatalf("%v t=%d: %v", s, threads, err)
			}
			if after := runtime.GOMAXPROCS(0); after != before {
				t.Fatalf("GOMAXPROCS %d after Section, was %d", after, before)
			}
			work := 1.25 * float64(tree.Work(nestedTree()))
			if got.BusyNs < work*0.999 {
				t.Errorf("%v t=%d: busy %v below the burdened work %v", s, threads, got.BusyNs, work)
			}
			if got.ParallelNs < work/float64(threads)*0.999 {
				t.Errorf("%v t=%d: parallel time %v below work/threads", s, threads, got.ParallelNs)
			}
			if got.IdleNs < 0 || got.Spread < 0 {
				t.Errorf("%v t=%d: idle %v spread %v", s, threads, got.IdleNs, got.Spread)
			}
			if got.IdleNs > 0 && math.Abs(got.BusyNs+got.IdleNs-float64(threads)*got.ParallelNs) > 1e-6*got.ParallelNs*float64(threads) {
				t.Errorf("%v t=%d: busy+idle = %v, want threads×parallel = %v", s, threads, got.BusyNs+got.IdleNs, float64(threads)*got.ParallelNs)
			}
			if got.Burden != 1.25 {
				t.Errorf("burden %v", got.Burden)
			}
		}
	}
}

func TestBudgetStopsEarly(t *testing.T) {
	e := New(Options{Repeats: 50, Budget: time.Nanosecond, MaxThreads: 1})
	sec := nestedTree()
	plan, err := compile(sec, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := e.measure([]*tree.Node{sec}, []*secPlan{plan}, 1, par.Schedule{Policy: par.Static}, machine.Walk{}, 0)[0]
	if len(m.samples) != 1 {
		t.Errorf("%d timed replays with a 1 ns budget, want 1", len(m.samples))
	}
}

func TestSectionsInRounds(t *testing.T) {
	// Two sections of 200 µs and 400 µs of work: each gets its own
	// measurement, in order, from interleaved replays.
	a := tree.Sec("a", tree.Task("t", tree.U(100_000)), tree.Task("t", tree.U(100_000)))
	b := tree.Sec("b", tree.Task("t", tree.U(200_000)), tree.Task("t", tree.U(200_000)))
	// b comes after 1 ms of serial code, which is spun before every
	// replay of b (one untimed and three timed) but not timed.
	e := New(Options{Repeats: 3, MaxThreads: 1})
	start := clock.Now()
	out, err := e.Sections([]*tree.Node{a, b}, 1, par.Schedule{Policy: par.Static}, []float64{1, 1}, []float64{0, 1_000_000}, emulate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if took := clock.Now() - start; took < 4*1_000_000 {
		t.Errorf("Sections took %d ns: the 1 ms gap before b was not spun before each of its 4 replays", took)
	}
	if len(out) != 2 || out[0].Name != "a" || out[1].Name != "b" {
		t.Fatalf("got %+v, want sections a and b", out)
	}
	for i, want := range []float64{200_000, 400_000} {
		// One thread: the replay takes the work (spin delays are exact
		// to well under 1%; preemption only lengthens it).
		if got := out[i].ParallelNs; got < 0.99*want || got > 1.5*want {
			t.Errorf("section %s: %v ns, want about %v", out[i].Name, got, want)
		}
	}
	if _, err := e.Sections([]*tree.Node{a}, 1, par.Schedule{Policy: par.Static}, nil, nil, emulate.Options{}); err == nil {
		t.Error("no error for missing burden factors")
	}
	if _, err := e.Sections([]*tree.Node{a}, 1, par.Schedule{Policy: par.Static}, []float64{1}, []float64{1, 2}, emulate.Options{}); err == nil {
		t.Error("no error for gaps that do not match the sections")
	}
}

func TestPredict(t *testing.T) {
	tr := tree.New(tree.U(2000), nestedTree(), tree.U(1000), tree.Run(2, nestedTree()))
	res, err := emulate.Predict(New(Options{Repeats: 1, MaxThreads: 2}), tr, 2, par.Schedule{Policy: par.Dynamic, Chunk: 1}, fixedWalk)
	if err != nil {
		t.Fatal(err)
	}
	if res.Emulator != "syn" || len(res.Sections) != 2 || res.Sections[1].Count != 2 {
		t.Errorf("result %+v", res)
	}
	if res.SerialNs != float64(tree.Work(tr.Root)) {
		t.Errorf("serial %v, want %v", res.SerialNs, tree.Work(tr.Root))
	}
	if !(res.Speedup > 0) || res.ParallelNs < 3000 {
		t.Errorf("speedup %v parallel %v", res.Speedup, res.ParallelNs)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name   string
		nets   []float64
		st     Statistic
		want   float64
		spread float64
	}{
		{"median odd", []float64{5, 1, 3, 2, 4}, Median, 3, 2.0 / 3},
		{"median even", []float64{4, 1, 3, 2}, Median, 2.5, 1.5 / 2.5},
		{"min", []float64{5, 1, 3, 2, 4}, Min, 1, 2.0 / 3},
		{"mean", []float64{5, 1, 3, 2, 4}, Mean, 3, 2.0 / 3},
		{"one sample", []float64{7}, Median, 7, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := summarize(tc.nets, append([]float64(nil), tc.nets...), tc.st)
			if math.Abs(m.parallel-tc.want) > 1e-9 {
				t.Errorf("statistic %v = %v, want %v", tc.st, m.parallel, tc.want)
			}
			if math.Abs(m.spread-tc.spread) > 1e-9 {
				t.Errorf("spread %v, want %v", m.spread, tc.spread)
			}
		})
	}
	if Median.String() != "median" || Statistic(9).String() != "Statistic(9)" {
		t.Error("Statistic.String")
	}
}

// TestReplaySetup checks that a replay runs per-worker setup
// (tree.Node.Setup) once per worker: the busy time (the spin time asked
// for, not a wall-clock reading) of 40 tasks of 20 µs setup and 10 µs
// work is 40·10 + 20 on one worker and up to 40·10 + 2·20 on two, where
// a setup in every task would make it 1200 µs.
func TestReplaySetup(t *testing.T) {
	sec := tree.Sec("s", tree.Run(40, tree.Task("t", tree.Setup(20e3), tree.U(10e3))))
	plan, err := compile(sec, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		threads  int
		min, max float64
	}{{1, 420e3, 420e3}, {2, 420e3, 440e3}} {
		r := &replayer{sched: par.Schedule{Policy: par.Dynamic, Chunk: 1}, threads: tc.threads}
		var a acct
		r.sec(plan, &a)
		if b := float64(a.busy); b < tc.min*0.99 || b > tc.max*1.05 {
			t.Errorf("%d threads: busy %.0f µs, want %.0f to %.0f", tc.threads, b/1e3, tc.min/1e3, tc.max/1e3)
		}
	}
}

// runsTree is a section of 40 tasks in runs of 1 to 7 identical ones.
func runsTree() *tree.Node {
	var kids []*tree.Node
	for k, size := range []int64{3, 1, 7, 2, 1, 1, 5, 4, 6, 3, 7} {
		kids = append(kids, tree.Run(size, tree.Task("t", tree.U(int64(10+k)))))
	}
	return tree.Sec("s", kids...)
}

// TestTaskNext checks the cursor lookup against the search of all runs
// for the orders a worker meets indices in: one by one, in chunks with
// gaps (static:C, dynamic:C), in jumps, and from a cursor left past i.
func TestTaskNext(t *testing.T) {
	sp, err := compile(runsTree(), 1)
	if err != nil {
		t.Fatal(err)
	}
	orders := map[string][]int{"every": nil, "chunks": nil, "jumps": {0, 39, 5, 6, 30, 2, 38}}
	for i := range sp.n {
		orders["every"] = append(orders["every"], i)
		if (i/3)%4 == 1 {
			orders["chunks"] = append(orders["chunks"], i)
		}
	}
	for name, order := range orders {
		cur := 0
		for _, i := range order {
			if got, want := sp.taskNext(i, &cur), sp.task(i); got != want {
				t.Errorf("%s: task %d: cursor gave run %d's task, want run %d's", name, i, cur, sp.runAt(i))
			}
			if sp.runs[cur].start > i || (cur+1 < len(sp.runs) && sp.runs[cur+1].start <= i) {
				t.Errorf("%s: task %d: cursor left at run %d (start %d)", name, i, cur, sp.runs[cur].start)
			}
		}
	}
}

// TestPrefix checks the plan of a section's first tasks: as many as fit
// the work asked for (at least one), the section's serial code kept, and
// the whole plan where it fits.
func TestPrefix(t *testing.T) {
	sec := tree.Sec("s", tree.U(5), tree.Run(4, tree.Task("a", tree.U(10))), tree.Run(3, tree.Task("b", tree.U(20))), tree.U(7))
	sp, err := compile(sec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sp.work != 5+40+60+7 {
		t.Fatalf("work %d", sp.work)
	}
	tests := []struct {
		maxWork   int64
		n         int
		work      int64
		runsKept  int
		wholePlan bool
	}{
		{maxWork: 1000, n: 7, work: 112, runsKept: 2, wholePlan: true},
		{maxWork: 112, n: 7, work: 112, runsKept: 2, wholePlan: true},
		{maxWork: 42, n: 3, work: 12 + 30, runsKept: 1},       // 3 of a's tasks
		{maxWork: 75, n: 5, work: 12 + 40 + 20, runsKept: 2},  // all of a's, one of b's
		{maxWork: 1, n: 1, work: 12 + 10, runsKept: 1},        // at least one task
		{maxWork: 100, n: 6, work: 12 + 40 + 40, runsKept: 2}, // two of b's
	}
	for _, tc := range tests {
		p := sp.prefix(tc.maxWork)
		if (p == sp) != tc.wholePlan || p.n != tc.n || p.work != tc.work || len(p.runs) != tc.runsKept {
			t.Errorf("prefix(%d): n %d, work %d, %d runs, whole plan %v; want %d, %d, %d, %v", tc.maxWork, p.n, p.work, len(p.runs), p == sp, tc.n, tc.work, tc.runsKept, tc.wholePlan)
		}
		if len(p.pre) != 1 || len(p.post) != 1 {
			t.Errorf("prefix(%d): serial code %v before, %v after", tc.maxWork, p.pre, p.post)
		}
	}
}

// TestDither checks the spins' dither: within [−width/2, width/2), about
// even (mean near 0, each quarter of the range about a quarter of the
// draws), none without a width, and apart for two workers.
func TestDither(t *testing.T) {
	const n, width = 100_000, 20.0
	var a, b acct
	a.rng.Seed(0, ditherSeed)
	b.rng.Seed(1, ditherSeed)
	var sum float64
	var quarters [4]int
	same := 0
	for range n {
		d := a.dither(width)
		if d < -width/2 || d >= width/2 {
			t.Fatalf("dither %v outside ±%v", d, width/2)
		}
		sum += d
		quarters[int((d+width/2)/(width/4))]++
		if b.dither(width) == d {
			same++
		}
	}
	if m := sum / n; math.Abs(m) > 0.1 {
		t.Errorf("mean dither %v, want about 0", m)
	}
	for q, c := range quarters {
		if c < n/4-n/50 || c > n/4+n/50 {
			t.Errorf("quarter %d has %d of %d draws", q, c, n)
		}
	}
	if same > 10 {
		t.Errorf("two workers drew the same dither %d times", same)
	}
	var z acct
	if d := z.dither(0); d != 0 {
		t.Errorf("dither without a width: %v", d)
	}
}

// TestSectionWalkFewVisits checks that a section whose first tasks make
// too few visits to measure a cost per visit keeps the given costs,
// without replaying anything, and that a measured cost stays in bounds.
func TestSectionWalkFewVisits(t *testing.T) {
	base := machine.Walk{NodeNs: 2, CallNs: 60, SpinNs: 40}
	for _, sec := range []*tree.Node{
		// One long task first: the prefix is that task alone.
		tree.Sec("s", tree.Task("big", tree.U(60_000_000)), tree.Run(1000, tree.Task("t", tree.U(100)))),
		// Tasks of 1 ms: five of them make the prefix.
		tree.Sec("s", tree.Run(30, tree.Task("t", tree.U(1_000_000)))),
	} {
		sp, err := compile(sec, 1)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if got := sectionWalk(sp, base, 0, 1); got != base {
			t.Errorf("%v: got %+v, want the given %+v", sec.Children[0].Name, got, base)
		}
		if d := time.Since(start); d > 10*time.Millisecond {
			t.Errorf("took %v: it replayed", d)
		}
	}
	sp, err := compile(tree.Sec("s", tree.Run(2000, tree.Task("t", tree.U(300)))), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := sectionWalk(sp, base, 0, 1); got.NodeNs < -base.SpinNs || got.NodeNs > sectionWalkMaxNs || got.CallNs != got.NodeNs || got.SpinNs != base.SpinNs {
		t.Errorf("measured %+v: out of bounds", got)
	}
}

// TestWalkCostFillsSpin checks that walking costs from a profile saved
// before SpinNs was measured keep their node and call costs and get
// SpinNs measured alone, without the whole walk measurement.
func TestWalkCostFillsSpin(t *testing.T) {
	e := New(Options{})
	w := e.walkCost(emulate.Options{Walk: machine.Walk{NodeNs: 3, CallNs: 7, Clock: spin.Clock()}})
	if w.NodeNs != 3 || w.CallNs != 7 || !(w.SpinNs > 0) {
		t.Errorf("walkCost = %+v, want NodeNs 3, CallNs 7 and a measured SpinNs", w)
	}
	if e.walk != (machine.Walk{}) {
		t.Errorf("the whole walk was measured: %+v", e.walk)
	}
	if got := e.walkCost(emulate.Options{Walk: machine.Walk{NodeNs: 1, CallNs: 1, SpinNs: 40, Clock: spin.Clock()}}); got.SpinNs != 40 {
		t.Errorf("a profile's SpinNs was replaced: %+v", got)
	}
}

// TestWalkCostOtherClock checks that walking costs measured with spin
// delays on another clock are measured anew: a delay's own cost depends
// on the clock it reads.
func TestWalkCostOtherClock(t *testing.T) {
	e := New(Options{})
	stale := machine.Walk{NodeNs: 1, CallNs: 1, SpinNs: 40, Clock: "another clock"}
	if got := e.walkCost(emulate.Options{Walk: stale}); got == stale || got.Clock != spin.Clock() {
		t.Errorf("walkCost = %+v, want the walk measured here with clock %q", got, spin.Clock())
	}
}

// TestTaskComputesItsEnds checks which leaves of a replayed task
// compute (spin.Work) rather than spin: its first and its last, where
// they are at most workMaxNs, the first on the task's index and the last
// on what the first computed; longer ones spin.
func TestTaskComputesItsEnds(t *testing.T) {
	const i = 7
	short, long := int64(200), int64(workMaxNs+1000)
	seed := uint64(i) + 1
	u := func(ns int64) item { return item{kind: itemU, ns: ns, reps: 1} }
	for _, c := range []struct {
		name  string
		items []item
		want  uint64
	}{
		{"one short leaf", []item{u(short)}, spin.Work(short, seed)},
		{"one long leaf", []item{u(long)}, seed},
		{"long, then short", []item{u(long), u(short)}, spin.Work(short, seed)},
		{"short, long, long", []item{u(short), u(long), u(long)}, spin.Work(short, seed)},
		{"short, long, short", []item{u(short), u(long), u(short)}, spin.Work(short, spin.Work(short, seed))},
	} {
		var a acct
		r := &replayer{sched: par.Schedule{Policy: par.Dynamic, Chunk: 1}, threads: 1}
		r.task(&taskPlan{items: c.items}, &a, i)
		if a.seed != c.want {
			t.Errorf("%s: the leaves computed to %#x, want %#x", c.name, a.seed, c.want)
		}
		// With Work's requests scaled by 2 (a core twice as fast as
		// when Work's rate was measured), each computed leaf asks for
		// twice its length.
		twice := c.want
		switch c.name {
		case "one short leaf", "long, then short", "short, long, long":
			twice = spin.Work(2*short, seed)
		case "short, long, short":
			twice = spin.Work(2*short, spin.Work(2*short, seed))
		}
		a = acct{}
		r.walk.workScale = 2
		r.task(&taskPlan{items: c.items}, &a, i)
		if a.seed != twice {
			t.Errorf("%s, Work scaled by 2: the leaves computed to %#x, want %#x", c.name, a.seed, twice)
		}
		if a.ordered {
			t.Errorf("%s: ordered %v after the task", c.name, a.ordered)
		}
	}
}
