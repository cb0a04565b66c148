package emulate_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// The triangular loop of lengths 8, 7, …, 1 ms (times in nanoseconds),
// predicted for two threads with three schedules on an ideal machine.
func ExamplePredict() {
	var tasks []*tree.Node
	for ms := int64(8); ms >= 1; ms-- {
		tasks = append(tasks, tree.Task("row", tree.U(ms*1e6)))
	}
	t := tree.New(tree.Sec("rows", tasks...))
	for _, s := range []string{"static", "static:1", "dynamic:1"} {
		sched, _ := par.ParseSchedule(s)
		r, err := emulate.Predict(ff.New(), t, 2, sched, emulate.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-9s %.0f ms → %.0f ms, speedup %.2f\n", s, r.SerialNs/1e6, r.ParallelNs/1e6, r.Speedup)
	}
	// Output:
	// static    36 ms → 26 ms, speedup 1.38
	// static:1  36 ms → 20 ms, speedup 1.80
	// dynamic:1 36 ms → 18 ms, speedup 2.00
}

// RunSweep predicts a grid of thread counts and schedules in one call.
// Here 1 ms of serial code and 64 tasks of 0.1 ms: at 4 threads
// 7.4 ms / (1 + 6.4/4) ms = 2.85, at 16 threads 7.4 / 1.4 = 5.29.
func ExampleRunSweep() {
	t := tree.New(tree.U(1e6), tree.Sec("loop", tree.Run(64, tree.Task("iter", tree.U(1e5)))))
	scheds, _ := par.ParseSchedules("static,dynamic:4")
	sw, err := emulate.RunSweep(t, []emulate.SectionEmulator{ff.New()}, []int{1, 4, 16}, scheds, emulate.Options{}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range sw.Results {
		fmt.Printf("%s %-9s %2d threads: %.2f\n", r.Emulator, r.Schedule, r.Threads, r.Speedup)
	}
	// Output:
	// ff static     1 threads: 1.00
	// ff static     4 threads: 2.85
	// ff static    16 threads: 5.29
	// ff dynamic:4  1 threads: 1.00
	// ff dynamic:4  4 threads: 2.85
	// ff dynamic:4 16 threads: 5.29
}
