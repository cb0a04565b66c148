package analyze_test

import (
	"fmt"
	"strings"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/tree"
)

// A loop whose iteration i takes 8-i ms: work 36 ms, span 8 ms.
func ExampleAnalyze() {
	const ms = 1_000_000
	var rows []*tree.Node
	for i := int64(8); i >= 1; i-- {
		rows = append(rows, tree.Task("row", tree.U(i*ms)))
	}
	t := tree.New(tree.U(2*ms), tree.Sec("rows", rows...))

	a, err := analyze.Analyze(t, analyze.Options{Threads: []int{4}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("work %d ms, span %d ms, parallelism %.2f\n", a.WorkNs/ms, a.SpanNs/ms, a.Parallelism)
	for _, r := range a.Regions {
		fmt.Printf("%-9s work %2d ms  on span %2d ms  own on span %2d ms\n", r.Name, r.WorkNs/ms, r.OnSpanNs/ms, r.SelfOnSpanNs/ms)
	}
	b := a.Bounds[0]
	fmt.Printf("4 threads: speedup between %.2f and %.2f\n", b.Lower, b.Upper)
	// Output:
	// work 38 ms, span 10 ms, parallelism 3.80
	// task:row  work 36 ms  on span  8 ms  own on span  8 ms
	// serial    work  2 ms  on span  2 ms  own on span  2 ms
	// sec:rows  work 36 ms  on span  8 ms  own on span  0 ms
	// 4 threads: speedup between 1.95 and 3.45
}

// What if the longest row were split into 4 parallel pieces, and what
// would it take to reach a parallelism of 8?
func ExampleWhatIf() {
	t := tree.New(tree.Sec("rows",
		tree.Task("big", tree.U(80)),
		tree.Run(10, tree.Task("row", tree.U(20)))))
	before, _ := analyze.Analyze(t, analyze.Options{})

	changed, err := analyze.WhatIf(t, analyze.Change{Region: "task:big", Parallelize: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	after, _ := analyze.Analyze(changed, analyze.Options{})
	fmt.Printf("parallelism %.1f -> %.1f\n", before.Parallelism, after.Parallelism)

	plan, err := analyze.TargetParallelism(t, 8, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range plan.Changes {
		fmt.Println(c)
	}
	fmt.Printf("parallelism %.1f -> %.1f\n", plan.Before, plan.After)
	// Output:
	// parallelism 3.5 -> 14.0
	// task:big parallelized 8 ways
	// parallelism 3.5 -> 14.0
}

// Pprof turns the regions into a pprof profile: each sample is one
// nesting of regions, valued by its own work and its time on the
// critical path. Write it with p.Write and open it with go tool pprof.
func ExamplePprof() {
	const ms = 1_000_000
	t := tree.New(tree.U(2*ms), tree.Sec("rows",
		tree.Task("row", tree.U(5*ms)), tree.Task("row", tree.U(3*ms))))
	t.Meta.Sites = map[string]string{"sec:rows": "/src/app/main.go:40", "task:row": "/src/app/main.go:42"}
	p, err := analyze.Pprof(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range p.Sample {
		var stack []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			stack = append(stack, s.Location[i].Line[0].Function.Name)
		}
		fmt.Printf("%-40s work %d ms, critical path %d ms\n", strings.Join(stack, " > "), s.Value[0]/ms, s.Value[1]/ms)
	}
	// Output:
	// sec:rows main.go:40 > task:row main.go:42 work 8 ms, critical path 5 ms
	// serial                                   work 2 ms, critical path 2 ms
}
