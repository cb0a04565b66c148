package report_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
)

// The work/span analysis of a triangular loop, as `prophet analyze`
// prints it.
func ExampleWriteAnalysisTable() {
	var rows []*tree.Node
	for i := int64(8); i >= 1; i-- {
		rows = append(rows, tree.Task("row", tree.U(i*1_000_000)))
	}
	t := tree.New(tree.Sec("rows", rows...))
	a, err := analyze.Analyze(t, analyze.Options{Threads: []int{2, 8}})
	if err != nil {
		fmt.Println(err)
		return
	}
	report.WriteAnalysisTable(os.Stdout, a, 0)
	// Output:
	// work T1      36 ms
	// span T∞      8 ms
	// parallelism  4.50
	// burdened     span 8 ms, parallelism 4.50 (fork 0 ns + wake-up 0 ns, join 0 ns, task 0 ns, lock 0 ns charged on the path)
	// lock bound   none (no locks)
	// tasks        8
	//
	// speedup bounds
	//   threads  lower  upper
	//         2   1.38   2.00
	//         8   2.88   4.50
	//
	// top-level sections
	// section  runs  work   span  parallelism  burdened span  longest lock
	// rows     1     36 ms  8 ms  4.50         8 ms           -
	//
	// regions (the first limits scaling most)
	// region    instances  work   span   parallelism  on span      own on span
	// task:row  8          36 ms  36 ms  1.00         8 ms (100%)  8 ms (100%)
	// sec:rows  1          36 ms  8 ms   4.50         8 ms (100%)  0 ns (0%)
}

// A page with only the work/span analysis: the speedup plot then shows
// the bounds alone.
func ExampleHTML() {
	t := tree.New(tree.U(1000), tree.Sec("loop", tree.Run(100, tree.Task("body", tree.U(500)))))
	a, _ := analyze.Analyze(t, analyze.Options{Threads: []int{1, 2, 4, 8}})
	var b strings.Builder
	if err := report.HTML(&b, report.Page{Title: "loop", Analysis: a}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(b.String(), "<svg"), strings.Contains(b.String(), "task:body"))
	// Output: true true
}

// A loop whose tasks hold one lock a third of the time, 100 ns at a
// time: far less than a spinning waiter's check (760 ns with the
// built-in overheads). Its critical sections are not marked indexed, so
// the note says when they should be; a loop whose are says nothing of
// it.
func ExampleShortLockNotes() {
	for _, l := range []*tree.Node{tree.L(1, 100), tree.IndexedL(1, 100)} {
		t := tree.New(tree.Sec("loop", tree.Run(1000, tree.Task("t", tree.U(100), l, tree.U(100)))))
		a, err := analyze.Analyze(t, analyze.Options{Threads: []int{2}})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, n := range report.ShortLockNotes(a) {
			fmt.Println(n)
		}
	}
	// Output:
	// lock 1 is held 100 ns at a time, 33% of the work, less than the 760 ns between two checks of a goroutine spinning for it: threads that meet at it wait a whole check, and real runs either take turns at it or meet at it at nearly every other Lock, from run to run; the speedup bounds have them take turns, and a real speedup can land far from ff's, on either side. If its critical sections write data the task picks (a histogram's bin, a slot by key) rather than one fixed variable, mark them with annotate.LockIndexed(1, ...): a parallel run fetches that data only once it holds the lock
	// lock 1 is held 100 ns at a time, 33% of the work, less than the 760 ns between two checks of a goroutine spinning for it: threads that meet at it wait a whole check, and real runs either take turns at it or meet at it at nearly every other Lock, from run to run; the speedup bounds have them take turns, and a real speedup can land far from ff's, on either side
}

// A what-if comparison of a loop before and after its tasks get twice as
// fast: the predictions are paired by emulator, schedule and thread
// count, a row predicted on one side only is not shown, and the notes
// say why.
func ExampleWriteWhatIfTable() {
	var rows []*tree.Node
	for i := int64(8); i >= 1; i-- {
		rows = append(rows, tree.Task("row", tree.U(i*1_000_000)))
	}
	t := tree.New(tree.Sec("rows", rows...))
	nt, _ := analyze.WhatIf(t, analyze.Change{Region: "row", Faster: 2})
	opt := analyze.Options{Threads: []int{2}}
	before, _ := analyze.Analyze(t, opt)
	after, _ := analyze.Analyze(nt, opt)
	static := par.Schedule{Policy: par.Static}
	spawn := par.Schedule{Policy: par.Spawn}
	report.WriteWhatIfTable(os.Stdout, report.WhatIf{
		Change: "row 2x faster", Before: before, After: after,
		BeforeResults: []emulate.Result{
			{Emulator: "ff", Schedule: spawn, Threads: 2, Speedup: 1.5},
			{Emulator: "ff", Schedule: static, Threads: 2, Speedup: 1.2},
		},
		AfterResults: []emulate.Result{{Emulator: "ff", Schedule: static, Threads: 2, Speedup: 1.25}},
		Notes:        []string{"after the change: left out, over their share of the emulation budget: ff spawn at 2 threads"},
	})
	// Output:
	// what if: row 2x faster
	//
	//                           before  after  change
	//                     work   36 ms  18 ms  -50.0%
	//                     span    8 ms   4 ms  -50.0%
	//              parallelism    4.50   4.50   +0.0%
	//            burdened span    8 ms   4 ms  -50.0%
	//     burdened parallelism    4.50   4.50   +0.0%
	//   upper bound, 2 threads    2.00   2.00   +0.0%
	//      speedup ff static 2    1.20   1.25   +4.2%
	//
	// After the change: left out, over their share of the emulation budget: ff spawn at 2 threads.
	//
	// after the change, the regions limiting scaling most:
	//
	// regions (the first limits scaling most)
	// region    instances  work   span   parallelism  on span      own on span
	// task:row  8          18 ms  18 ms  1.00         4 ms (100%)  4 ms (100%)
	// sec:rows  1          18 ms  4 ms   4.50         4 ms (100%)  0 ns (0%)
}

// A loop of 20,000 tasks of 300 ns: ff's predictions of a goroutine per
// task are least accurate for tasks this short.
func ExampleFineSpawnNotes() {
	t := tree.New(tree.Sec("loop", tree.Run(20_000, tree.Task("t", tree.U(300)))))
	for _, n := range report.FineSpawnNotes(t) {
		fmt.Println(n)
	}
	// Output:
	// section loop has 20,000 tasks a run, 300 ns each on average: for loops of tasks this short, ff's spawn and errgroup predictions are its least accurate, too low or too high (what a goroutine costs Go grows with how many are alive at once, which ff does not model); --emulator ff,syn adds the synthesizer's, which spawns real goroutines on this machine's cores
}
