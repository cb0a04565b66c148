package ff

import (
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// TestCounterQueue checks, on loops worked out by hand, that a dynamic
// team's counter serves one fetch at a time: a fetch that moves the
// counter's line holds it for ChunkMigrateNs, and a fetch made meanwhile
// waits. Where the workers ask faster than the line moves, the loop
// takes one chunk per ChunkMigrateNs, whatever the thread count.
func TestCounterQueue(t *testing.T) {
	loop := func(n int64, u int64) *tree.Tree {
		return tree.New(tree.Sec("loop", tree.Run(n, tree.Task("t", tree.U(u)))))
	}
	tests := []struct {
		name     string
		tr       *tree.Tree
		threads  int
		sched    string
		mig      float64 // ChunkMigrateNs
		serve    float64 // ChunkServeNs (0: ChunkMigrateNs)
		lo, hi   float64 // the parallel time, ns
		pastOnly float64 // what charging each move without the queue gives
	}{
		// Worker 0 fetches at 0 (the line is where it is: no move) and
		// runs task 0 till 10; worker 1 fetches at 0 (a move, to 20),
		// runs task 1 till 30; worker 0 at 10 waits till 20, moves the
		// line till 40, runs task 2 till 50; worker 1 at 30 waits till
		// 40, moves it till 60 and runs task 3 till 70.
		{"two workers by hand", loop(4, 10), 2, "dynamic:1", 20, 0, 70, 70, 60},
		// A worker is back every 100 + 300 ns, two ask for the line
		// once each in that time: no queue, 500 tasks each.
		{"line keeps up", loop(1000, 300), 2, "dynamic:1", 100, 0, 500 * 400, 500*400 + 100, 500 * 400},
		// Eight or sixteen ask for it eight or sixteen times in 400 ns,
		// and it moves four times: one task per 100 ns, and the last
		// one's move and length after the thousandth move.
		{"eight queue", loop(1000, 300), 8, "dynamic:1", 100, 0, 999 * 100, 999*100 + 400, 125 * 400},
		{"sixteen queue", loop(1000, 300), 16, "dynamic:1", 100, 0, 999 * 100, 999*100 + 400, 63 * 400},
		// A counter that serves a fetch in 50 ns, though each waits
		// 100 for the line: sixteen asking in 400 ns queue, one task
		// per 50 ns.
		{"served faster than it moves", loop(1000, 300), 16, "dynamic:1", 100, 50, 999 * 50, 999*50 + 400, 63 * 400},
	}
	for _, tc := range tests {
		sc, err := par.ParseSchedule(tc.sched)
		if err != nil {
			t.Fatal(err)
		}
		for _, stepwise := range []bool{false, true} {
			e := New()
			e.exactGrid, e.stepwise = true, stepwise
			res, err := emulate.Predict(e, tc.tr, tc.threads, sc, emulate.Options{Overheads: machine.Overheads{ChunkMigrateNs: tc.mig, ChunkServeNs: tc.serve}})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if res.ParallelNs < tc.lo || res.ParallelNs > tc.hi {
				t.Errorf("%s (stepwise %v): parallel time %v ns, want %v to %v (without the queue: %v)",
					tc.name, stepwise, res.ParallelNs, tc.lo, tc.hi, tc.pastOnly)
			}
		}
	}
}

// TestCounterShortEnd checks, on loops worked out by hand, that a fetch
// that moves the counter's line costs the short end's line where the
// worker asks again sooner than its reach (Overheads.ChunkMigrateFor),
// and the whole move otherwise, step by step and with the closed forms
// alike.
func TestCounterShortEnd(t *testing.T) {
	// ChunkMigrateNs 100, served in 20; the short end 40 ns at 10 ns
	// reaches 100 at 25 ns.
	ov := machine.Overheads{ChunkMigrateNs: 100, ChunkServeNs: 20, ChunkMigrateShortNs: 40, ChunkShortTaskNs: 10}
	tests := []struct {
		name  string
		u     int64 // each of the five tasks
		short bool  // with the short end
		want  float64
	}{
		// Worker 0 fetches at 0 (no move), runs task 0 till 20;
		// worker 1 has not fetched before: the whole move, till 100
		// (the line taken till 20), task 1 till 120. Worker 0 asks
		// again 20 after its fetch: 4·20 = 80 till 100 (the line
		// taken for 20·80/100 = 16, till 36), task 2 till 120. At 120
		// one of them moves the line in 80, taking it till 136 (till
		// 200, the next task till 220), and the other waits till 136
		// and moves it till 216: task 4 till 236.
		{"short tasks", 20, true, 236},
		// The whole move at every fetch: worker 0's second fetch from
		// 20 till 120, task 2 till 140; worker 1's from 120 till 220,
		// task 3 till 240; worker 0's from 140 till 240, task 4 till
		// 260.
		{"short tasks, no short end", 20, false, 260},
		// Tasks of 30 ns ask again past the reach: the whole move, as
		// without the short end (0-30, 0-100-130, 30-130-160,
		// 130-230-260, 160-260-290).
		{"past the reach", 30, true, 290},
		{"past the reach, no short end", 30, false, 290},
	}
	for _, tc := range tests {
		o := ov
		if !tc.short {
			o.ChunkMigrateShortNs, o.ChunkShortTaskNs = 0, 0
		}
		tr := tree.New(tree.Sec("loop", tree.Run(5, tree.Task("t", tree.U(tc.u)))))
		for _, stepwise := range []bool{false, true} {
			e := New()
			e.exactGrid, e.stepwise = true, stepwise
			res, err := emulate.Predict(e, tr, 2, par.Schedule{Policy: par.Dynamic, Chunk: 1}, emulate.Options{Overheads: o})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if res.ParallelNs != tc.want {
				t.Errorf("%s (stepwise %v): parallel time %v ns, want %v", tc.name, stepwise, res.ParallelNs, tc.want)
			}
		}
	}
}

// TestWakeChain checks, on a loop worked out by hand, that with a wake
// step the idle cores are woken one after another: the first a wake-up
// latency after the fork, each next one the step after the one before
// took its goroutine; without it, all at once.
func TestWakeChain(t *testing.T) {
	// Four workers of one 1000 ns task each, on four cores. Worker 0
	// runs on the forking core from 0; the others are queued, and
	// their cores start them at 100, then 100+30, 100+60 (chain), or
	// all at 100.
	tr := tree.New(tree.Sec("loop", tree.Run(4, tree.Task("t", tree.U(1000)))))
	tests := []struct {
		name string
		step float64
		want float64
	}{
		{"all at once", 0, 1100},
		{"one after another", 30, 1160},
	}
	for _, tc := range tests {
		for _, stepwise := range []bool{false, true} {
			e := New()
			e.exactGrid, e.stepwise, e.WakeSamples = true, stepwise, 1
			ov := machine.Overheads{WakeP50Ns: 100, WakeP90Ns: 100, WakeStepNs: tc.step}
			res, err := emulate.Predict(e, tr, 4, par.Schedule{Policy: par.Static}, emulate.Options{Overheads: ov})
			if err != nil {
				t.Fatal(err)
			}
			if res.ParallelNs != tc.want {
				t.Errorf("%s (stepwise %v): parallel time %v ns, want %v", tc.name, stepwise, res.ParallelNs, tc.want)
			}
		}
	}
}
