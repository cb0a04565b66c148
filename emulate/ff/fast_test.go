package ff

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// luSections returns every step-th top-level section of the LU profile
// (none if testdata/lu.ppt is missing).
func luSections(t testing.TB, step int) []*tree.Node {
	t.Helper()
	lu, err := tree.ReadFile(luPath)
	if errors.Is(err, fs.ErrNotExist) {
		t.Logf("%s is missing: no LU sections", luPath)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var secs []*tree.Node
	for i, n := range lu.Root.Children {
		if n.Kind == tree.KindSec && i%step == 0 {
			secs = append(secs, n)
		}
	}
	return secs
}

// lockRuns returns a section of runs of identical U-L-U tasks on lock 1,
// LU-like, with a different task now and then, l making the runs' holds
// of lock 1.
func lockRuns(l func(id int, ns int64) *tree.Node) *tree.Node {
	return tree.Sec("lr",
		tree.Run(300, tree.Task("a", tree.U(1370), l(1, 0))),
		tree.Task("b", tree.U(2850), tree.L(1, 10), tree.U(20)),
		tree.Run(200, tree.Task("a", tree.U(1370), l(1, 0))),
		tree.U(1800),
		tree.Run(150, tree.Task("c", tree.U(700), l(1, 40), tree.U(300))),
		tree.Run(90, tree.Task("d", tree.U(500), tree.L(2, 5), tree.U(5))))
}

// TestShortcutsExact checks that the engine's shortcuts (walking tasks
// without the heap, closed-form batches of identical tasks, lockstep
// rounds, inert wake-up samples) give exactly, bit for bit, what the
// node-by-node emulation gives.
func TestShortcutsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	secs := map[string]*tree.Node{
		"triangular": triangular(), "fig5": fig5(), "fig6": fig6(), "fig7": fig7(),
		"locks":     lockTree(3000),
		"quicksort": tree.Sec("top", tree.Task("root", tree.U(100), quicksort(rng, 20000))),
		// Runs of identical U-L-U tasks on one lock, LU-like, with a
		// different task now and then.
		"lockruns": lockRuns(tree.L),
		// The same with lock 1's critical sections indexed but task
		// b's: their Locks from another core fly half a move (b's the
		// whole move), and the lockstep rounds take that.
		"indexedruns": lockRuns(tree.IndexedL),
		// Runs of identical tasks of U nodes only (static:C chunks and
		// dynamic:C rounds in one step), runs of other lengths between.
		"pureruns": tree.Sec("pr",
			tree.Run(1000, tree.Task("p", tree.U(300))),
			tree.Task("q", tree.U(2500)),
			tree.Run(777, tree.Task("p", tree.U(300))),
			tree.Run(500, tree.Task("r", tree.U(40), tree.U(7))),
			tree.Task("s", tree.U(90), tree.L(1, 10)),
			tree.Run(333, tree.Task("t", tree.U(1))),
			tree.Run(400, tree.Task("p", tree.U(300))),
			tree.Run(64, tree.Task("u", tree.U(100), tree.Sec("in", tree.Run(20, tree.Task("v", tree.U(30))))))),
	}
	// A single recording's loop: runs of one task split by struck ones
	// (a core falls out of the lockstep rounds for a while) and by the
	// loop's own code.
	var struck []*tree.Node
	for i := range 30 {
		struck = append(struck, tree.Run(20+rng.Int64N(70), tree.Task("p", tree.U(300))), tree.Task("p", tree.U(1000+rng.Int64N(4000))))
		if i%7 == 0 {
			struck = append(struck, tree.U(900))
		}
	}
	secs["struck"] = tree.Sec("st", struck...)
	trees, luStep := 12, 60
	if testing.Short() {
		trees, luStep = 4, 250
	}
	for i := 0; i < trees; i++ {
		secs[fmt.Sprintf("random %d", i)] = randSec(rng, 0)
	}
	for i, sec := range luSections(t, luStep) {
		secs[fmt.Sprintf("lu %d", i)] = sec
	}
	ovs := []machine.Overheads{
		{},
		machine.Default().Overheads,
		// (With costs for a lock and a chunk counter that move between cores.)
		{ForkNs: 7, JoinNs: 3, ChunkNs: 1, ChunkMigrateNs: 4, SpawnNs: 2, SpawnRunNs: 3, LockNs: 1, LockMigrateNs: 3, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40},
		{ForkNs: 250, JoinNs: 500, ChunkNs: 17, SpawnNs: 175, LockNs: 12, LockHandoffNs: 11000, WakeP50Ns: 2000, WakeP90Ns: 9000},
		calibrated,
		calibrated10,
		{ForkNs: 7, JoinNs: 3, SpawnNs: 2, LockNs: 1, LockMigrateNs: 5, LockHandoffNs: 40, WakeP50Ns: 5, WakeP90Ns: 40, RunnextNs: 9},
		// An Unlock that wakes a parked waiter costs the unlocker.
		{ForkNs: 7, JoinNs: 3, SpawnNs: 2, LockNs: 1, LockHandoffNs: 40, LockWakeNs: 6, WakeP50Ns: 5, WakeP90Ns: 40, RunnextNs: 9},
		// Idle cores woken one after another (a wake step).
		{ForkNs: 7, JoinNs: 3, ChunkNs: 1, ChunkMigrateNs: 4, SpawnNs: 2, SpawnRunNs: 3, LockNs: 1, LockMigrateNs: 3, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40, WakeStepNs: 3, RunnextNs: 9},
		// A Lock on one thread costs less than on more (LockLocalNs).
		{ForkNs: 7, JoinNs: 3, ChunkNs: 1, ChunkMigrateNs: 4, SpawnNs: 2, SpawnRunNs: 3, LockNs: 6, LockLocalNs: 1, LockMigrateNs: 3, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40},
		// A chunk counter that serves faster than its line moves.
		{ForkNs: 7, JoinNs: 3, ChunkNs: 1, ChunkMigrateNs: 8, ChunkServeNs: 3, TaskCallNs: 1, LockNs: 1, LockMigrateNs: 3, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40},
		// A chunk move that costs less to workers that ask again within
		// 200 ns (the short end), a counter served in 12.
		{ForkNs: 7, JoinNs: 3, ChunkNs: 1, ChunkMigrateNs: 40, ChunkServeNs: 12, ChunkMigrateShortNs: 20, ChunkShortTaskNs: 100, TaskCallNs: 1, LockNs: 1, LockMigrateNs: 3, LockHandoffNs: 4, WakeP50Ns: 5, WakeP90Ns: 40},
		// Goroutines that park at once for a lock while others wait for
		// a core, switched in after a normal-mode wake-up or a direct
		// hand-off (LockSwitchNs), with a short spin window.
		{ForkNs: 7, JoinNs: 3, SpawnNs: 2, SpawnRunNs: 3, LockNs: 1, LockHandoffNs: 40, LockSwitchNs: 20, LockSpinNs: 50, LockSpinRampNs: 10, WakeP50Ns: 5, WakeP90Ns: 40, RunnextNs: 9},
		// Noise at a rate the test trees' short holds meet often.
		{ForkNs: 7, JoinNs: 3, SpawnNs: 2, LockNs: 1, LockHandoffNs: 40, WakeP50Ns: 5, WakeP90Ns: 40, RunnextNs: 9, NoiseHz: 2e6, NoiseP50Ns: 30, NoiseP90Ns: 90},
		// Waiters woken soon after they parked paying less (a doze and
		// its ramp), with the hand-off's own spread.
		{ForkNs: 7, JoinNs: 3, SpawnNs: 2, LockNs: 1, LockMigrateNs: 3, LockHandoffNs: 40, LockHandoffP90Ns: 60, LockWakeNs: 6, LockDozeNs: 30, LockDozeRampNs: 20, LockDozeHandoffNs: 15, LockDozeWakeNs: 2, LockSpinNs: 10, LockSpinRampNs: 5, WakeP50Ns: 5, WakeP90Ns: 40, RunnextNs: 9},
	}
	fast, slow := New(), New()
	fast.exactSpawn = true // the one shortcut that is not exact: TestSpawnSkipError
	slow.stepwise = true
	for name, sec := range secs {
		for _, threads := range []int{1, 2, 3, 4, 8, 16} {
			for _, s := range allSchedules {
				for oi, ov := range ovs {
					for _, b := range []float64{1, 1.25, 1.0731} {
						opt := emulate.Options{Overheads: ov}
						a, err := fast.section(sec, threads, sched(t, s), b, fast.charges(opt.Overheads), nil, 0, -1)
						if err != nil {
							t.Fatal(err)
						}
						want, err := slow.section(sec, threads, sched(t, s), b, slow.charges(opt.Overheads), nil, 0, -1)
						if err != nil {
							t.Fatal(err)
						}
						// Sharing inert runs is a shortcut too: it saves runs.
						a.inert, want.inert, a.runs, want.runs = false, false, 0, 0
						if a != want {
							t.Fatalf("%s, %s at %d, overheads %d, burden %v:\nshortcuts %+v\nstepwise  %+v", name, s, threads, oi, b, a, want)
						}
					}
				}
			}
		}
	}
}

// TestWakeRounding bounds the effect of rounding wake-up latencies (and
// a calibrated profile's overheads, and burden factors) to the
// 1/gridScale ns grid, with machine.Default's overheads and with
// calibrated ones and a burden: on the test trees, the predictions move
// by 0.05% on average and 1% at most; on the LU profile, whose sections
// are checked as the profile's prediction adds them up, by 0.3% on
// average and 2% at most.
//
// A single LU section may move more: its few hundred tasks of about a
// microsecond meet at one lock from 8 threads on, where a nanosecond
// decides whether a spinning waiter's check (spinCheck) comes before or
// after another goroutine takes the lock, and that changes the waits
// after it (sections of 40-200 µs by up to a quarter), as any
// perturbation of the same size does and as real runs differ from one
// another. Over many sections these moves go both ways.
func TestWakeRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	secs := []*tree.Node{triangular(), fig5(), fig6(), fig7(), lockTree(2000),
		tree.Sec("top", tree.Task("root", tree.U(100), quicksort(rng, 20000)))}
	// Every tenth LU section, in -short too: with fewer, the sum is a
	// handful of sections and moves as one does.
	lu := luSections(t, 10)
	rounded, exact := New(), New()
	exact.exactGrid = true
	// predict returns the rounded and the exact prediction of sec.
	predict := func(sec *tree.Node, threads, j int, s string) (a, b float64) {
		// Default overheads (only the wake-up latencies are rounded)
		// and, every other schedule, a calibrated profile's (fractions
		// of a nanosecond, all rounded).
		opt := emulate.Options{Overheads: machine.Default().Overheads}
		burden := 1.0
		if j%2 == 1 {
			opt.Overheads, burden = calibrated, 1.0731
		}
		ra, err := rounded.Section(sec, threads, sched(t, s), burden, opt)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := exact.Section(sec, threads, sched(t, s), burden, opt)
		if err != nil {
			t.Fatal(err)
		}
		return ra.ParallelNs, rb.ParallelNs
	}
	check := func(what string, cases []float64, mean, most float64) {
		worst, sum, moved := 0.0, 0.0, 0
		for _, d := range cases {
			worst, sum = max(worst, d), sum+d
			if d > most {
				moved++
			}
		}
		n := len(cases)
		t.Logf("%s: largest relative difference %.3g, mean %.3g over %d; %d over %.0f%%", what, worst, sum/float64(n), n, moved, 100*most)
		if moved > n/100 {
			t.Errorf("%s: %d of %d cases moved by more than %.0f%%, want at most 1%% of them", what, moved, n, 100*most)
		}
		if sum/float64(n) > mean {
			t.Errorf("%s: mean relative difference %.3g, want at most %.3g", what, sum/float64(n), mean)
		}
	}
	var trees, profile []float64
	for _, threads := range []int{2, 4, 8, 16} {
		for j, s := range allSchedules {
			for i, sec := range secs {
				a, b := predict(sec, threads, j, s)
				d := math.Abs(a-b) / b
				trees = append(trees, d)
				if d > 0.10 {
					t.Errorf("section %d, %s at %d: rounded %v, exact %v", i, s, threads, a, b)
				}
			}
			if len(lu) == 0 {
				continue
			}
			var sa, sb float64
			for _, sec := range lu {
				a, b := predict(sec, threads, j, s)
				sa, sb = sa+a, sb+b
			}
			profile = append(profile, math.Abs(sa-sb)/sb)
		}
	}
	// A few of the test trees' cases may move by more than the
	// rounding's own size: where locks are contended, nearly
	// simultaneous events can come in the other order, and that decides
	// who takes a lock, or which core errgroup's spawner resumes on.
	check("test trees", trees, 0.0005, 0.01)
	if len(profile) > 0 {
		check("LU", profile, 0.003, 0.02)
	}
}

// calibrated is a machine profile's overheads as prophet calibrate
// measured them on the project's VM: fractions of a nanosecond, off the
// engine's grid until the emulator rounds them.
var calibrated = machine.Overheads{ForkNs: 431.37, JoinNs: 13200.5, ChunkNs: 21.288005828857422, SpawnNs: 659.004,
	LockNs: 11.226107597351074, LockHandoffNs: 113449.3, WakeP50Ns: 100000, WakeP90Ns: 116591.44011798318}

// calibrated10 is a later calibration there, with the runnext back-off.
var calibrated10 = machine.Overheads{ForkNs: 129.81, JoinNs: 7835.4, ChunkNs: 19.0146, ChunkMigrateNs: 97.31, SpawnNs: 158.7, SpawnRunNs: 412.6, LockNs: 9.87,
	LockHandoffNs: 103259.1, LockSpinNs: 2900.3, LockSpinRampNs: 500.1, WakeP50Ns: 15848.931924611134, WakeP90Ns: 25118.864315095794, RunnextNs: 74500}

// TestCloneSweep checks that emulate.RunSweep, predicting with clones of
// the emulator on several goroutines, returns what predicting row by
// row returns, in the same order.
func TestCloneSweep(t *testing.T) {
	secs := luSections(t, 50)
	if len(secs) == 0 {
		secs = []*tree.Node{lockTree(500), fig5(), triangular()}
	}
	lu := tree.New(secs...)
	scheds := luSchedules(t)
	opt := emulate.Options{Overheads: machine.Default().Overheads}
	e := New()
	last := 0
	sw, err := emulate.RunSweep(lu, []emulate.SectionEmulator{e}, luThreads, scheds, opt, func(done, total int) {
		if done != last+1 || total != len(luThreads)*len(scheds) {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, s := range scheds {
		for _, th := range luThreads {
			want, err := emulate.Predict(e, lu, th, s, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := sw.Results[i]
			if got.Threads != th || got.Schedule != s || got.ParallelNs != want.ParallelNs || got.Speedup != want.Speedup {
				t.Errorf("row %d: %s %d threads %v, want %s %d threads %v", i, got.Schedule, got.Threads, got.ParallelNs, s, th, want.ParallelNs)
			}
			i++
		}
	}
	if i != len(sw.Results) {
		t.Errorf("%d results, want %d", len(sw.Results), i)
	}
	var rec []emulate.Span
	if (&Emulator{Timeline: &rec}).Clone() != nil {
		t.Error("an emulator recording a timeline was cloned")
	}
}

// TestSpawnCycles checks the spawn-cycle shortcut (spawnCycle)
// and the period shortcut (spawnPeriod) against the step-by-step
// emulation where they take effect: a spawner slower than the tasks it
// spawns but faster than a core wakes, on 3, 4, 8 and 16 threads (where
// the cores never all go idle), in one run of identical tasks and in
// runs of the same task split by serial code, as recorded loops are.
// Every result must agree bit for bit, and the shortcuts must have added
// spawns at once.
func TestSpawnCycles(t *testing.T) {
	split := []*tree.Node{}
	for i := 0; i < 6; i++ {
		split = append(split, tree.Run(int64(700+97*i), tree.Task("t", tree.U(362))), tree.U(int64(5000+i)))
	}
	secs := map[string]*tree.Node{
		"one run":   tree.Sec("loop", tree.Run(20000, tree.Task("t", tree.U(362)))),
		"six runs":  tree.Sec("loop", split...),
		"two tasks": tree.Sec("loop", tree.Run(5000, tree.Task("t", tree.U(362))), tree.Run(5000, tree.Task("u", tree.U(200)))),
	}
	ovs := []machine.Overheads{
		{SpawnNs: 610, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 25119, RunnextNs: 73000},
		{SpawnNs: 610.37, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 25119},
		{SpawnNs: 800, SpawnRunNs: 412, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 25119, RunnextNs: 73000},
		// Goroutines that take a core longer than a spawn takes the
		// spawner: tasks run at every spawn (periods only).
		{SpawnNs: 291, SpawnRunNs: 412, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 25119, RunnextNs: 73000},
		{SpawnNs: 385, SpawnRunNs: 360, JoinNs: 7460, WakeP50Ns: 15849, WakeP90Ns: 25119, RunnextNs: 73000, NoiseHz: 450, NoiseP50Ns: 14006, NoiseP90Ns: 24448},
		{SpawnNs: 400, WakeP50Ns: 3000, WakeP90Ns: 9000, RunnextNs: 2000, NoiseHz: 500, NoiseP50Ns: 15000, NoiseP90Ns: 30000},
		// Idle cores woken one after another.
		{SpawnNs: 610, SpawnRunNs: 412, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 25119, WakeStepNs: 6500, RunnextNs: 73000},
	}
	for name, sec := range secs {
		p := mustCompile(t, sec)
		for _, threads := range []int{3, 4, 8, 16} {
			for oi, ov := range ovs {
				fast, slow := New(), New()
				slow.stepwise = true
				ch := fast.charges(ov)
				var jumped, periods int64
				for _, lat := range ch.lat {
					ss := &state{stepwise: true}
					b, err := emulateOnce(ss, p, threads, rule(t, "spawn"), 1, ch.ov, lat, nil, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					for _, only := range []bool{false, true} {
						s := &state{onlyPeriods: only, exactSpawn: true}
						a, err := emulateOnce(s, p, threads, rule(t, "spawn"), 1, ch.ov, lat, nil, 0, 0)
						if err != nil {
							t.Fatal(err)
						}
						if only {
							periods += s.cycleSpawns
						} else {
							jumped += s.cycleSpawns
						}
						if a != b {
							t.Fatalf("%s at %d threads, overheads %d, wake %v, periods only %v:\nshortcuts %+v\nstepwise  %+v", name, threads, oi, lat, only, a, b)
						}
					}
				}
				// Where the cores, not the spawner, limit the loop, the
				// ready queue grows and lockstepSpawnPure takes it.
				spawnerBound := float64(threads-1)*ov.SpawnNs >= 362+ov.SpawnRunNs
				if name == "one run" && spawnerBound && (jumped == 0 || periods == 0) {
					t.Errorf("%s at %d threads, overheads %d: spawns taken at once: %d by cycles and periods, %d by periods alone; want some by each", name, threads, oi, jumped, periods)
				}
			}
		}
	}
}

// TestSpawnSkipError bounds the one shortcut that is not exact
// (spawnSkip) against the exact emulation, on spawners that set the pace
// of 3 to 16 threads with measured overheads and wake-ups (where no
// period repeats): the section's time within one wake-up (the 90th
// percentile) of the exact one, its busy time the same (the skipped
// windows are busy for exactly their tasks' work), and some spawns
// skipped. (Measured: at most 7.7 µs on sections of 3.7 to 31 ms.)
func TestSpawnSkipError(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var recorded []*tree.Node
	for range 40 {
		if rng.IntN(3) == 0 {
			recorded = append(recorded, tree.Task("t", tree.U(362+rng.Int64N(300))))
		}
		recorded = append(recorded, tree.Run(500+rng.Int64N(3000), tree.Task("t", tree.U(362))))
	}
	// A single recording's loop: short runs split by struck tasks (a
	// few times to a few hundred times longer) and now and then the
	// loop's own code struck.
	var broken []*tree.Node
	for range 150 {
		broken = append(broken, tree.Run(1+rng.Int64N(200), tree.Task("t", tree.U(312))))
		switch rng.IntN(8) {
		case 0:
			broken = append(broken, tree.U(2000+rng.Int64N(3000)))
		case 1:
			broken = append(broken, tree.Task("t", tree.U(20000+rng.Int64N(110000))))
		default:
			broken = append(broken, tree.Task("t", tree.U(700+rng.Int64N(4000))))
		}
	}
	secs := map[string]*tree.Node{
		"one run":  tree.Sec("loop", tree.Run(20000, tree.Task("t", tree.U(362)))),
		"recorded": tree.Sec("loop", recorded...),
		"broken":   tree.Sec("loop", broken...),
	}
	ovs := []machine.Overheads{
		{SpawnNs: 248, SpawnRunNs: 233, JoinNs: 7000, WakeP50Ns: 15849, WakeP90Ns: 21544, RunnextNs: 73000},
		{SpawnNs: 385, SpawnRunNs: 360, JoinNs: 7460, WakeP50Ns: 15849, WakeP90Ns: 25119, RunnextNs: 73000, NoiseHz: 450, NoiseP50Ns: 14006, NoiseP90Ns: 24448},
	}
	var skipped int64
	for name, sec := range secs {
		p := mustCompile(t, sec)
		for _, threads := range []int{3, 4, 8, 16} {
			for oi, ov := range ovs {
				ch := New().charges(ov)
				for _, lat := range ch.lat {
					exact, err := emulateOnce(&state{exactSpawn: true}, p, threads, rule(t, "spawn"), 1, ch.ov, lat, nil, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					s := &state{}
					got, err := emulateOnce(s, p, threads, rule(t, "spawn"), 1, ch.ov, lat, nil, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					skipped += s.cycleSpawns
					if diff := math.Abs(got.parallel - exact.parallel); diff > ov.WakeP90Ns || got.busy != exact.busy {
						t.Errorf("%s at %d threads, overheads %d, wake %v: parallel %v against %v exactly (%v ns off), busy %v against %v",
							name, threads, oi, lat, got.parallel, exact.parallel, diff, got.busy, exact.busy)
					}
				}
			}
		}
	}
	if skipped == 0 {
		t.Error("no spawn skipped: the test checks nothing")
	}
}
