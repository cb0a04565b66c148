package ff

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/cputime"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// expandedNodes counts the nodes of n with runs written out.
func expandedNodes(n *tree.Node) float64 {
	c := 1.0
	for _, ch := range n.Children {
		c += expandedNodes(ch)
	}
	return c * float64(n.Reps())
}

// lockTree is a loop of n distinct tasks, each U, L (one of 4 locks), U.
func lockTree(n int) *tree.Node {
	rng := rand.New(rand.NewPCG(7, 8))
	tasks := make([]*tree.Node, n)
	for i := range tasks {
		tasks[i] = tree.Task("t", tree.U(500+rng.Int64N(1000)), tree.L(rng.IntN(4), 10+rng.Int64N(50)), tree.U(500+rng.Int64N(1000)))
	}
	return tree.Sec("locks", tasks...)
}

func benchSection(b *testing.B, sec *tree.Node, threads int, s string, ov machine.Overheads) {
	sc, err := par.ParseSchedule(s)
	if err != nil {
		b.Fatal(err)
	}
	e := New()
	nodes := expandedNodes(sec)
	opt := emulate.Options{Overheads: ov}
	// One untimed call makes the section's compact copy, which a
	// prediction makes once for its 25 or more emulations
	// (BenchmarkCompile measures it); the collection clears what the
	// benchmarks before left on the heap.
	if _, err := e.section(sec, threads, sc, 1, e.charges(opt.Overheads), nil, 0, -1); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	runs := 0
	for b.Loop() {
		r, err := e.section(sec, threads, sc, 1, e.charges(opt.Overheads), nil, 0, -1)
		if err != nil {
			b.Fatal(err)
		}
		runs += r.runs
	}
	cpu := cpuSeconds() - cpu0
	// nodes/s counts the tree's nodes once per prediction; with
	// wake-up latency samples each prediction emulates the tree several
	// times, and emulated-nodes/s counts every emulation.
	b.ReportMetric(nodes*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(nodes*float64(runs)/b.Elapsed().Seconds(), "emulated-nodes/s")
	if cpu > 0 {
		// On a loaded machine, wall time overstates the cost; the
		// process's CPU time (GC included) is the fairer measure.
		b.ReportMetric(nodes*float64(b.N)/cpu, "nodes/cpu-s")
	}
}

// cpuSeconds returns the process's CPU time in seconds (0 where the
// system has no clock for it).
func cpuSeconds() float64 {
	ns, _ := cputime.Process()
	return float64(ns) / 1e9
}

// BenchmarkLocks emulates 10^6 distinct tasks with locks (4·10^6 nodes),
// dynamic:1 on 8 threads, without overheads (one emulation).
func BenchmarkLocks(b *testing.B) {
	sec := lockTree(1_000_000)
	for _, s := range []string{"dynamic:1", "static", "spawn"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 8, s, machine.Overheads{}) })
	}
}

// BenchmarkLocksOverheads is BenchmarkLocks with machine.Default's
// overheads: five emulations, one per wake-up latency sample.
func BenchmarkLocksOverheads(b *testing.B) {
	sec := lockTree(1_000_000)
	benchSection(b, sec, 8, "dynamic:1", machine.Default().Overheads)
}

// BenchmarkSpawnLockQueue emulates a spawn of 5·10^4 short tasks (U, L,
// U of 100-140, 450-490 and 100-140 ns, each distinct, as a recording
// keeps tasks that take a lock) on one lock at 16 threads with
// machine.Default's overheads: the lock is slower than the spawner, the
// goroutines queue at it by the tens of thousands, and every Unlock
// takes the waiter whose spin check comes first from either end of that
// queue (ring.take).
func BenchmarkSpawnLockQueue(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	tasks := make([]*tree.Node, 50_000)
	for i := range tasks {
		tasks[i] = tree.Task("t", tree.U(100+rng.Int64N(40)), tree.L(1, 450+rng.Int64N(40)), tree.U(100+rng.Int64N(40)))
	}
	benchSection(b, tree.Sec("locks", tasks...), 16, "spawn", machine.Default().Overheads)
}

// BenchmarkRuns emulates a run of 10^6 identical tasks (2·10^6 expanded
// nodes) stored as one node: static blocks are one step each, dynamic
// and spawn take them in rounds.
func BenchmarkRuns(b *testing.B) {
	sec := tree.Sec("runs", tree.Run(1_000_000, tree.Task("t", tree.U(1000))))
	for _, s := range []string{"static", "static:1", "dynamic:1", "dynamic:64", "spawn"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 8, s, machine.Overheads{}) })
	}
}

// BenchmarkCounterQueue emulates a dynamic:1 run of 10^6 identical
// tasks of 50 ns at 16 threads whose workers queue at the counter (a
// move of its line takes 80 ns, more than a task): the rounds of one
// chunk per worker last 16 moves, and go in one step each stretch.
func BenchmarkCounterQueue(b *testing.B) {
	sec := tree.Sec("runs", tree.Run(1_000_000, tree.Task("t", tree.U(50))))
	benchSection(b, sec, 16, "dynamic:1", machine.Overheads{ChunkNs: 20, ChunkMigrateNs: 80})
}

// BenchmarkCounterQueueShort is BenchmarkCounterQueue with tasks of
// 30 ns under the short end's reach (a move costs 40 ns at 20 ns, the
// whole 80 from 40 ns on): the rounds charge the move and the serving
// time for the tasks' interval, and still go in one step each stretch.
func BenchmarkCounterQueueShort(b *testing.B) {
	sec := tree.Sec("runs", tree.Run(1_000_000, tree.Task("t", tree.U(30))))
	benchSection(b, sec, 16, "dynamic:1", machine.Overheads{ChunkNs: 20, ChunkMigrateNs: 80, ChunkMigrateShortNs: 40, ChunkShortTaskNs: 20})
}

// BenchmarkSpawnFeed emulates a spawn of 10^6 identical tasks of 1 µs
// on 2 threads whose spawner (100 ns a spawn) outruns the other core:
// it queues its spawns ahead of the cores (spawnAhead), and the cores
// drain the queue in rounds (lockstepSpawnPure) between its visits.
func BenchmarkSpawnFeed(b *testing.B) {
	sec := tree.Sec("runs", tree.Run(1_000_000, tree.Task("t", tree.U(1000))))
	benchSection(b, sec, 2, "spawn", machine.Overheads{SpawnNs: 100})
}

// BenchmarkSpawnFeedRuns is BenchmarkSpawnFeed on 20,000 runs of 50
// tasks, their lengths alternating between 1,000 and 1,010 ns, as a
// recording breaks a regular loop into runs: the spawner queues an
// entry per run, 20,000 of them by the end, ahead of the other core.
func BenchmarkSpawnFeedRuns(b *testing.B) {
	runs := make([]*tree.Node, 20000)
	for i := range runs {
		runs[i] = tree.Run(50, tree.Task("t", tree.U(int64(1000+10*(i%2)))))
	}
	benchSection(b, tree.Sec("runs", runs...), 2, "spawn", machine.Overheads{SpawnNs: 100})
}

// struckTree is a regular loop of n tasks of 312 ns as a single recording
// keeps it: runs of a few to a few thousand identical tasks (median
// about 40), each followed by one task struck by an interrupt or the
// collector (0.7 to 130 µs), and now and then the loop's own code struck
// between two tasks.
func struckTree(n int) *tree.Node {
	rng := rand.New(rand.NewPCG(13, 14))
	var kids []*tree.Node
	for left := n; left > 0; {
		c := min(1+int(rng.ExpFloat64()*60), left)
		left -= c
		kids = append(kids, tree.Run(int64(c), tree.Task("t", tree.U(312))))
		if left == 0 {
			break
		}
		left--
		if rng.IntN(50) == 0 {
			kids = append(kids, tree.Task("t", tree.U(20000+rng.Int64N(110000))))
		} else {
			kids = append(kids, tree.Task("t", tree.U(700+rng.Int64N(4000))))
		}
		if rng.IntN(8) == 0 {
			kids = append(kids, tree.U(2000+rng.Int64N(3000)))
		}
	}
	return tree.Sec("loop", kids...)
}

// BenchmarkStruck emulates the single recording of a regular loop of
// 10^6 tasks (struckTree) on 16 threads, with measured overheads: the
// struck tasks break the runs, which the pure rounds of dynamic:1 and
// spawn's skips carry on across.
func BenchmarkStruck(b *testing.B) {
	sec := struckTree(1_000_000)
	ov := machine.Overheads{ChunkNs: 9, ChunkMigrateNs: 12, SpawnNs: 287, SpawnRunNs: 385, JoinNs: 7446, WakeP50Ns: 15849, WakeP90Ns: 29286, RunnextNs: 71000}
	for _, s := range []string{"static", "static:1", "dynamic:1", "guided:1", "spawn"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 16, s, ov) })
	}
}

// BenchmarkSpawnCycles emulates 10^6 spawned tasks of 362 ns on 4
// threads with a spawn that costs more than a task and a wake-up that
// costs much more (the spawn cycles of spawnCycle).
func BenchmarkSpawnCycles(b *testing.B) {
	sec := tree.Sec("runs", tree.Run(1_000_000, tree.Task("t", tree.U(362))))
	benchSection(b, sec, 4, "spawn", machine.Overheads{SpawnNs: 610, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 25119, RunnextNs: 73000})
}

// BenchmarkNested emulates a recursive quicksort-like tree.
func BenchmarkNested(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	sec := tree.Sec("top", tree.Task("root", tree.U(100), quicksort(rng, 1_000_000)))
	for _, s := range []string{"static", "dynamic:1", "spawn"} {
		b.Run(fmt.Sprintf("%s", s), func(b *testing.B) { benchSection(b, sec, 8, s, machine.Overheads{}) })
	}
}

// mixedTree is a loop of about n tasks in short runs, as a profile of a
// loop with varied iterations compresses to: runs of 1 to 5 identical
// tasks, some of U nodes only, some with an L on one of 2 locks.
func mixedTree(n int) *tree.Node {
	rng := rand.New(rand.NewPCG(11, 12))
	var kids []*tree.Node
	for left := n; left > 0; {
		c := min(1+rng.IntN(5), left)
		left -= c
		var t *tree.Node
		if rng.IntN(3) == 0 {
			t = tree.Task("t", tree.U(20+rng.Int64N(500)), tree.L(rng.IntN(2), 10+rng.Int64N(40)), tree.U(rng.Int64N(50)))
		} else {
			t = tree.Task("t", tree.U(20+rng.Int64N(100)))
		}
		if c > 1 {
			t = tree.Run(int64(c), t)
		}
		kids = append(kids, t)
	}
	return tree.Sec("mixed", kids...)
}

// BenchmarkMixed emulates 10^6 tasks in short runs of identical tasks on
// 16 threads: the runs are too short for the closed forms, and a static:C
// worker's next chunk lies a few runs past its last.
func BenchmarkMixed(b *testing.B) {
	sec := mixedTree(1_000_000)
	for _, s := range []string{"static:1", "dynamic:1", "spawn"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 16, s, machine.Overheads{}) })
	}
}

// BenchmarkDense emulates a loop of 10^6 distinct tasks of 100 to 1,000
// ns, U nodes only (a dense section: no two alike, so no run to take in
// closed form), on 16 threads with machine.Default's overheads: the
// irregular lock-free loop, where dynamic:1 and spawn take an event a
// task.
func BenchmarkDense(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	tasks := make([]*tree.Node, 1_000_000)
	for i := range tasks {
		tasks[i] = tree.Task("t", tree.U(100+rng.Int64N(900)))
	}
	sec := tree.Sec("dense", tasks...)
	ov := machine.Default().Overheads
	for _, s := range []string{"static", "static:1", "dynamic:1", "guided:1", "spawn"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 16, s, ov) })
	}
}

// BenchmarkLocksSmall is BenchmarkLocks on 10^4 tasks (the tree stays in
// cache).
func BenchmarkLocksSmall(b *testing.B) {
	sec := lockTree(10_000)
	for _, s := range []string{"dynamic:1", "static"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 8, s, machine.Overheads{}) })
	}
}

// BenchmarkNestedSmall is BenchmarkNested on a tree that stays in cache.
func BenchmarkNestedSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	sec := tree.Sec("top", tree.Task("root", tree.U(100), quicksort(rng, 50_000)))
	for _, s := range []string{"static", "spawn"} {
		b.Run(s, func(b *testing.B) { benchSection(b, sec, 8, s, machine.Overheads{}) })
	}
}

// luTree reads testdata/lu.ppt: prophet demo's LU 500×500 profile (499
// sections of up to 500 tasks of about 1.4 µs, each with a short L on
// one lock, stored as runs).
func luTree(tb testing.TB) *tree.Tree {
	tb.Helper()
	t, err := tree.ReadFile(luPath)
	if errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("%s is missing (it is matched by .gitignore's *.ppt: add it with git add -f)", luPath)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// luPath is prophet demo's LU profile.
const luPath = "testdata/lu.ppt"

// luGrid is prophet predict's default grid: 5 thread counts × 5
// schedules.
var luThreads = []int{1, 2, 4, 8, 16}

func luSchedules(tb testing.TB) []par.Schedule {
	tb.Helper()
	sc, err := par.ParseSchedules("static,static:1,dynamic:1,guided:1,spawn")
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

// BenchmarkLUPredict predicts the LU profile for 5 thread counts × 5
// schedules with machine.Default's overheads, as prophet predict does
// (emulate.RunSweep, using every core). One serial run of the LU
// example takes about 120 ms.
func BenchmarkLUPredict(b *testing.B) {
	t := luTree(b)
	scheds := luSchedules(b)
	opt := emulate.Options{Overheads: machine.Default().Overheads}
	emus := []emulate.SectionEmulator{New()}
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, err := emulate.RunSweep(t, emus, luThreads, scheds, opt, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkLUPredictSerial is BenchmarkLUPredict on one goroutine.
func BenchmarkLUPredictSerial(b *testing.B) {
	t := luTree(b)
	scheds := luSchedules(b)
	opt := emulate.Options{Overheads: machine.Default().Overheads}
	e := New()
	cpu0 := cpuSeconds()
	for b.Loop() {
		for _, s := range scheds {
			for _, th := range luThreads {
				if _, err := emulate.Predict(e, t, th, s, opt); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkCompile measures the compact copy a section gets before its
// first emulation (an Emulator made by New then keeps it): the one-time
// cost per section, to add to the first of a prediction's emulations.
func BenchmarkCompile(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		name string
		sec  *tree.Node
	}{
		{"locks", lockTree(1_000_000)},
		{"nested", tree.Sec("top", tree.Task("root", tree.U(100), quicksort(rng, 1_000_000)))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			nodes := expandedNodes(tc.sec)
			for b.Loop() {
				if _, err := compile(tc.sec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(nodes*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
