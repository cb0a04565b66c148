package ff

import (
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// lastFirst is a toy schedule, written here the way a new schedule is
// added to the engine: a worker pool that pops its tasks one at a time
// from the end of the loop (a slice used as a stack), at no cost.
type lastFirst struct{ worksharing }

func (lastFirst) assign(*secInfo, int, int) (cursor, int64, int64) { return cursor{}, 0, 0 }

func (lastFirst) next(s *state, g *gor, f *frame) took {
	tm, info := f.team, f.info
	if tm.k > 1 && !s.at(g) {
		return tookWait
	}
	if tm.next < info.n {
		f.cur = info.seek(info.n - 1 - tm.next)
		f.left = 1
		tm.next++
	}
	return tookChunk
}

func TestScheduleToy(t *testing.T) {
	// The triangular loop (8, 7, ..., 1 ms) popped from its end on two
	// cores: w0 takes 1 (→1), w1 2 (→2); w0 3 at 1 (→4), w1 4 at 2
	// (→6), w0 5 at 4 (→9), w1 6 at 6 (→12), w0 7 at 9 (→16), w1 8 at
	// 12 (→20): 20 ms, where dynamic:1 (in loop order) gives 18.
	// A run of 1000 identical tasks checks the shortcuts that hold for
	// any schedule: 500 each, 250 ms.
	tests := []struct {
		name string
		sec  func() *prog
		want float64
	}{
		{"triangular", func() *prog { return mustCompile(t, triangular()) }, 20e6},
		{"identical", func() *prog { return mustCompile(t, tree.Sec("same", tree.Run(1000, tree.Task("t", tree.U(500e3))))) }, 250e6},
	}
	for _, tc := range tests {
		r, err := emulateOnce(nil, tc.sec(), 2, lastFirst{}, 1, machine.Overheads{}, 0, nil, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestGoIdioms checks the pool and errgroup schedules on loops whose
// answer is worked out by hand (two cores, wake-ups instant).
func TestGoIdioms(t *testing.T) {
	four := tree.Sec("four",
		tree.Task("a", tree.U(10e6)), tree.Task("b", tree.U(10.5e6)),
		tree.Task("c", tree.U(10e6)), tree.Task("d", tree.U(10e6)))
	tests := []struct {
		name, sched string
		sec         *tree.Node
		ov          machine.Overheads
		want        float64
	}{
		// Without costs a pool is dynamic:1 (18 ms, see
		// TestTriangular); filling its channel with the 8 indices
		// first (1 µs a send) delays every task by 8 µs.
		{"pool free", "pool", triangular(), machine.Overheads{}, 18e6},
		{"pool fill", "pool", triangular(), machine.Overheads{ChanSendNs: 1000}, 18e6 + 8000},
		// A receive per task (0.5 ms): worker 0 takes 8 at 0.5 (→8.5),
		// worker 1 7 at 0.5 (→7.5); then 6 at 7.5+0.5 (→14), 5 at
		// 8.5+0.5 (→14); 4 at 14.5 (→18.5), 3 at 14.5 (→17.5); 2 at
		// 18 (→20), 1 at 19 (→20); the last receives find nothing.
		{"pool receive", "pool", triangular(), machine.Overheads{ChanRecvNs: 0.5e6}, 20e6},
		// spawn, 1 ms a go statement: the spawner spawns all four by
		// 4 ms; a runs 1-11 on the idle core, b 4-14.5 once the
		// spawner waits at the join, c 11-21, d 14.5-24.5.
		{"spawn", "spawn", four, machine.Overheads{SpawnNs: 1e6}, 24.5e6},
		// errgroup with a limit of two: a 1-11, b 2-12.5 (the spawner
		// waits for a slot from 2 ms); a's end at 11 hands the spawner
		// core 1: c spawned 11-12, runs 12-22; b's end at 12.5: d
		// spawned 12.5-13.5, runs 13.5-23.5, the join at its end.
		{"errgroup", "errgroup", four, machine.Overheads{SpawnNs: 1e6}, 23.5e6},
		// spawn with 0.5 ms to start each goroutine on its core: a
		// taken at 1, runs 1.5-11.5; b taken at 4, 4.5-15; c at 11.5,
		// 12-22; d at 15, 15.5-25.5.
		{"spawn run", "spawn", four, machine.Overheads{SpawnNs: 1e6, SpawnRunNs: 0.5e6}, 25.5e6},
		// errgroup so: a 1.5-11.5, b 2.5-13; a's end hands the spawner
		// core 1: c spawned 11.5-12.5, runs 13-23; b's end: d spawned
		// 13-14, runs 14.5-24.5.
		{"errgroup run", "errgroup", four, machine.Overheads{SpawnNs: 1e6, SpawnRunNs: 0.5e6}, 24.5e6},
	}
	for _, tc := range tests {
		r := emulateSec(t, tc.sec, 2, tc.sched, tc.ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestSpawnRunByTask checks that a spawned goroutine's start costs what
// machine.Overheads.SpawnRunFor gives for the section's mean task, on
// loops worked out by hand (two cores, wake-ups instant).
func TestSpawnRunByTask(t *testing.T) {
	// Four tasks of 10 ms, spawned at 1 ms a go statement.
	four := tree.Sec("four", tree.Run(4, tree.Task("t", tree.U(10e6))))
	// A start cost measured as 0.5 ms with tasks of 20 ms, 0.025 ns
	// less per ns of task below: 0.25 ms for these. a taken at 1, runs
	// 1.25-11.25; b at 4 (the spawner at the join), 4.25-14.25; c at
	// 11.25, 11.5-21.5; d at 14.25, 14.5-24.5.
	short := machine.Overheads{SpawnNs: 1e6, SpawnRunNs: 0.5e6, SpawnRunSlope: 0.025, SpawnRunTaskNs: 20e6}
	// Measured with tasks of 5 ms, the tasks here longer: 0.5 ms each,
	// as in TestGoIdioms's "spawn run" (a 1.5-11.5, b 4.5-14.5, c
	// 12-22, d 15-25).
	long := short
	long.SpawnRunTaskNs = 5e6
	// Twice as long under a burden of 2 (tasks of 20 ms): 0.5 ms, a
	// 1.5-21.5, b 4.5-24.5, c 22-42, d 25-45.
	// On one core the whole measured cost whatever the task: the spawner
	// spawns all four (4 ms), then each takes 0.5 + 10 ms: 46 ms.
	// With a hot start of 0.1 ms for tasks up to 12 ms: a 1.1-11.1, b
	// 4.1-14.1, c 11.2-21.2, d 14.2-24.2. With the hot start up to 6 ms
	// and the flat line's 0.5 ms from 14 ms, 10 ms tasks lie halfway:
	// 0.3 ms, a 1.3-11.3, b 4.3-14.3, c 11.6-21.6, d 14.6-24.6. On one
	// core the measured cost, as above.
	hot := machine.Overheads{SpawnNs: 1e6, SpawnRunNs: 0.5e6, SpawnRunHotNs: 0.1e6, SpawnRunHotTaskNs: 12e6, SpawnRunShortTaskNs: 20e6}
	between := hot
	between.SpawnRunHotTaskNs, between.SpawnRunShortTaskNs = 6e6, 14e6
	tests := []struct {
		name    string
		ov      machine.Overheads
		threads int
		burden  float64
		want    float64
	}{
		{"short tasks", short, 2, 1, 24.5e6},
		{"long tasks", long, 2, 1, 25e6},
		{"burdened", short, 2, 2, 45e6},
		{"one core", short, 1, 1, 46e6},
		{"hot start", hot, 2, 1, 24.2e6},
		{"between hot and short", between, 2, 1, 24.6e6},
		{"hot start, one core", hot, 1, 1, 46e6},
	}
	for _, tc := range tests {
		r, err := New().Section(four, tc.threads, sched(t, "spawn"), tc.burden, emulate.Options{Overheads: tc.ov})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.ParallelNs != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.ParallelNs, tc.want)
		}
	}
}

// TestSetupOncePerWorker checks per-worker setup (tree.Node.Setup) on
// loops worked out by hand: two cores, no overheads.
func TestSetupOncePerWorker(t *testing.T) {
	// Four tasks of 1 ms setup + 2 ms work, static on two workers: each
	// runs two tasks and pays the setup once: 1 + 2·2 = 5 ms (serially
	// 12 ms). spawn: every task is a goroutine and pays it: 2·3 = 6 ms.
	tasks := func() *tree.Node {
		return tree.Sec("rows", tree.Run(4, tree.Task("row", tree.Setup(1e6), tree.U(2e6))))
	}
	// The section's own setup (0.5 ms) before its tasks: each worker
	// pays it before its first task: 0.5 + 2·2 = 4.5 ms; a task-level
	// setup on top: 0.5 + 1 + 4 = 5.5 ms.
	strand := tree.Sec("rows", tree.Setup(0.5e6), tree.Run(4, tree.Task("row", tree.U(2e6))))
	both := tree.Sec("rows", tree.Setup(0.5e6), tree.Run(4, tree.Task("row", tree.Setup(1e6), tree.U(2e6))))
	// Two setup nodes in one task: the first task of each worker pays
	// both (0.25 + 0.75), later ones neither: 1 + 2·2 = 5 ms.
	two := tree.Sec("rows", tree.Run(4, tree.Task("row", tree.Setup(0.25e6), tree.U(1e6), tree.Setup(0.75e6), tree.U(1e6))))
	tests := []struct {
		name, sched string
		sec         *tree.Node
		want        float64
	}{
		{"static", "static", tasks(), 5e6},
		{"dynamic:1", "dynamic:1", tasks(), 5e6},
		{"pool", "pool", tasks(), 5e6},
		{"spawn", "spawn", tasks(), 6e6},
		{"strand", "static", strand, 4.5e6},
		{"both", "dynamic:1", both, 5.5e6},
		{"two setups", "static:1", two, 5e6},
	}
	for _, tc := range tests {
		r := emulateSec(t, tc.sec, 2, tc.sched, machine.Overheads{}, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}
