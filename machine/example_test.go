package machine_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/machine"
)

// A machine profile starts from the defaults, is adjusted with what was
// measured, and is saved for predict to use.
func Example() {
	p := machine.Default()
	p.CPU, p.Cores = "Example CPU", 8
	p.Overheads.ForkNs = 1500 // measured
	dir, _ := os.MkdirTemp("", "machine")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "machine.json")
	if err := p.Save(path); err != nil {
		fmt.Println(err)
		return
	}
	q, err := machine.Load(path)
	fmt.Println(q.CPU, q.Cores, q.Overheads.ForkNs, err)
	// Output: Example CPU 8 1500 <nil>
}

// ExampleLogNormal spreads a wake-up latency measured as a median of
// 16 µs and a 90th percentile of 23 µs.
func ExampleLogNormal() {
	d := machine.LogNormal(16e3, 23e3)
	fmt.Printf("median %.0f ns, p90 %.0f ns, p99 %.0f ns\n", d.Quantile(0.5), d.Quantile(0.9), d.Quantile(0.99))
	// Output: median 16000 ns, p90 23000 ns, p99 30919 ns
}

// ExampleOverheads_SpawnRunFor charges a spawned goroutine of a short
// task less for its start than the long task the cost was measured with.
func ExampleOverheads_SpawnRunFor() {
	o := machine.Overheads{SpawnRunNs: 600, SpawnRunSlope: 0.15, SpawnRunTaskNs: 2000}
	for _, task := range []float64{100, 1000, 5000} {
		fmt.Printf("task %4.0f ns: %.0f ns\n", task, o.SpawnRunFor(task))
	}
	// Output:
	// task  100 ns: 315 ns
	// task 1000 ns: 450 ns
	// task 5000 ns: 600 ns
}

// ExampleOverheads_HandoffFor charges a lock waiter woken soon after it
// parked the doze costs, one woken after a long wait the full hand-off,
// and one in between a share of each.
func ExampleOverheads_HandoffFor() {
	o := machine.Overheads{
		LockHandoffNs: 200e3, LockWakeNs: 40e3,
		LockDozeNs: 150e3, LockDozeRampNs: 50e3, LockDozeHandoffNs: 100e3, LockDozeWakeNs: 7e3,
	}
	for _, waited := range []float64{50e3, 175e3, 1e6} {
		h, w := o.HandoffFor(waited)
		fmt.Printf("waited %4.0f µs: hand-off %3.0f µs, Unlock %4.1f µs\n", waited/1e3, h/1e3, w/1e3)
	}
	// Output:
	// waited   50 µs: hand-off 100 µs, Unlock  7.0 µs
	// waited  175 µs: hand-off 150 µs, Unlock 23.5 µs
	// waited 1000 µs: hand-off 200 µs, Unlock 40.0 µs
}

// ExampleOverheads_SpawnRunFor_hotStart charges a goroutine of a task
// short enough that the cores keep up with the spawner its hot start,
// rises from there to the line's short end, and on to the long end in
// the task's logarithm.
func ExampleOverheads_SpawnRunFor_hotStart() {
	o := machine.Overheads{
		SpawnRunNs: 600, SpawnRunSlope: 0.15, SpawnRunTaskNs: 2000,
		SpawnRunHotNs: 120, SpawnRunHotTaskNs: 110, SpawnRunShortTaskNs: 250,
	}
	for _, task := range []float64{50, 180, 250, 1000} {
		fmt.Printf("task %4.0f ns: %.0f ns\n", task, o.SpawnRunFor(task))
	}
	// Output:
	// task   50 ns: 120 ns
	// task  180 ns: 229 ns
	// task  250 ns: 338 ns
	// task 1000 ns: 512 ns
}

// ExampleOverheads_ChunkServe gives the time a dynamic loop's counter
// takes per fetch when its workers queue for it: the measured serving
// time, or the line move where a profile has none.
func ExampleOverheads_ChunkServe() {
	measured := machine.Overheads{ChunkMigrateNs: 82, ChunkServeNs: 64}
	older := machine.Overheads{ChunkMigrateNs: 82}
	fmt.Printf("%.0f ns, %.0f ns\n", measured.ChunkServe(), older.ChunkServe())
	// At most one fetch per serving time, however many workers ask:
	fmt.Printf("a loop of 50 ns tasks: at most %.2f-fold\n", 50/measured.ChunkServe())
	// Output:
	// 64 ns, 82 ns
	// a loop of 50 ns tasks: at most 0.78-fold
}

// ExampleOverheads_ChunkMigrateFor gives what a dynamic loop's fetch
// that moves the counter's line costs a worker that asks again soon:
// on a machine whose cores move lines slowly, workers of short tasks
// take several fetches per move.
func ExampleOverheads_ChunkMigrateFor() {
	o := machine.Overheads{ChunkMigrateNs: 150, ChunkServeNs: 80, ChunkMigrateShortNs: 75, ChunkShortTaskNs: 25}
	for _, task := range []float64{10, 25, 40, 200} {
		mig, serve := o.ChunkMigrateFor(task)
		fmt.Printf("tasks of %3.0f ns: move %3.0f ns, served in %2.0f ns\n", task, mig, serve)
	}
	// Output:
	// tasks of  10 ns: move  30 ns, served in 16 ns
	// tasks of  25 ns: move  75 ns, served in 40 ns
	// tasks of  40 ns: move 120 ns, served in 64 ns
	// tasks of 200 ns: move 150 ns, served in 80 ns
}

func ExampleOverheads_ChunkCurve() {
	o := machine.Overheads{ChunkMigrateNs: 150, ChunkServeNs: 80, ChunkMigrateShortNs: 75, ChunkShortTaskNs: 25}
	c := o.ChunkCurve() // once, for many fetches
	mig, serve := c.For(10)
	fmt.Printf("short end reaches the whole move at %.0f ns; tasks of 10 ns: move %.0f ns, served in %.0f ns\n", c.EndNs(), mig, serve)
	// Output:
	// short end reaches the whole move at 50 ns; tasks of 10 ns: move 30 ns, served in 16 ns
}
