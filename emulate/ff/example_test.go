package ff_test

import (
	"fmt"
	"strings"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// A loop whose iterations take 8, 7, ..., 1 ms, predicted on two cores
// with ideal (zero) overheads.
func Example() {
	var tasks []*tree.Node
	for ms := int64(8); ms >= 1; ms-- {
		tasks = append(tasks, tree.Task("iter", tree.U(ms*1e6)))
	}
	prog := tree.New(tree.Sec("loop", tasks...))
	for _, s := range []string{"static", "static:1", "dynamic:1", "spawn"} {
		sched, _ := par.ParseSchedule(s)
		res, err := emulate.Predict(ff.New(), prog, 2, sched, emulate.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-9s %.0f ms, speedup %.2f\n", s, res.ParallelNs/1e6, res.Speedup)
	}
	// Output:
	// static    26 ms, speedup 1.38
	// static:1  20 ms, speedup 1.80
	// dynamic:1 18 ms, speedup 2.00
	// spawn     18 ms, speedup 2.00
}

// Trace returns the emulated schedule as timeline spans, one row per
// logical thread; report.WriteTrace writes them for Perfetto.
func ExampleEmulator_Trace() {
	prog := tree.New(tree.Sec("loop",
		tree.Task("a", tree.U(1500), tree.L(1, 1000)),
		tree.Task("b", tree.U(1000), tree.L(1, 2000)),
	))
	spans, res, err := ff.New().Trace(prog, 2, par.Schedule{Policy: par.Static}, emulate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans {
		line := fmt.Sprintf("thread %d %5.0f-%5.0f ns %-8s %s", s.Thread, s.StartNs, s.EndNs, s.Kind, s.Name)
		fmt.Println(strings.TrimSpace(line))
	}
	fmt.Printf("speedup %.2f\n", res.Speedup)
	// Output:
	// thread 0     0- 1500 ns task     a
	// thread 1     0- 1000 ns task     b
	// thread 1  1000- 3000 ns lock     b lock 1
	// thread 0  1500- 3000 ns lockwait
	// thread 0  3000- 4000 ns lock     a lock 1
	// thread 1  3000- 4000 ns idle
	// speedup 1.38
}

// Sections predicts a program's top-level sections in one call, as
// emulate.Predict does. Here a time-step loop runs one two-task section
// 40 times on two cores whose idle core wakes after 50 µs at the median
// and 400 µs at the 90th percentile: each step is emulated once, the
// five wake-up samples taken in turn, instead of five times. A step
// takes 100 µs plus the wake-up latency, up to 100 µs.
func ExampleEmulator_Sections() {
	var steps []*tree.Node
	for range 40 {
		steps = append(steps, tree.Sec("step", tree.Task("a", tree.U(100_000)), tree.Task("b", tree.U(100_000))))
	}
	burdens := make([]float64, len(steps))
	for i := range burdens {
		burdens[i] = 1
	}
	opt := emulate.Options{Overheads: machine.Overheads{WakeP50Ns: 50_000, WakeP90Ns: 400_000}}
	secs, err := ff.New().Sections(steps, 2, par.Schedule{Policy: par.Static}, burdens, nil, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	var total float64
	for _, s := range secs[:5] {
		fmt.Printf("step: %.0f µs\n", s.ParallelNs/1e3)
	}
	for _, s := range secs {
		total += s.ParallelNs
	}
	fmt.Printf("40 steps: %.2f ms, %.0f µs each on average\n", total/1e6, total/40/1e3)
	// Output:
	// step: 106 µs
	// step: 121 µs
	// step: 150 µs
	// step: 200 µs
	// step: 200 µs
	// 40 steps: 6.22 ms, 156 µs each on average
}
