package analyze

import (
	"testing"

	"github.com/parallel-prophet/prophet/tree"
)

// bigTree returns a compressed tree of 10^7 top-level-section tasks
// (each with a nested section of 4 tasks) in 2000 runs of 5000, plus
// 3000 distinct tasks.
func bigTree() *tree.Tree {
	var secs []*tree.Node
	for s := 0; s < 20; s++ {
		var kids []*tree.Node
		for r := 0; r < 100; r++ {
			l := int64(1000 + 10*r + s)
			kids = append(kids, tree.Run(5000, tree.Task("row",
				tree.U(l), tree.L(r%7, 50),
				tree.Sec("inner", tree.Run(4, tree.Task("cell", tree.U(l/4)))),
				tree.U(100))))
		}
		secs = append(secs, tree.U(5000), tree.Sec("rows", kids...))
	}
	var odd []*tree.Node
	for i := 0; i < 3000; i++ {
		odd = append(odd, tree.Task("odd", tree.U(int64(100+i)), tree.L(i%3, 10)))
	}
	secs = append(secs, tree.Sec("odds", odd...))
	return tree.New(secs...)
}

func TestBigTreeShape(t *testing.T) {
	if testing.Short() {
		t.Skip("large tree")
	}
	a := mustAnalyze(t, bigTree(), Options{})
	if want := int64(20*100*5000*5 + 3000); a.Tasks != want {
		t.Errorf("tasks = %d, want %d", a.Tasks, want)
	}
}

// BenchmarkAnalyzeWhatIf10M analyzes a compressed tree of 10^7 tasks,
// applies a what-if change and analyzes the result (goal: < 1 s).
func BenchmarkAnalyzeWhatIf10M(b *testing.B) {
	t := bigTree()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Analyze(t, Options{}); err != nil {
			b.Fatal(err)
		}
		nt, err := WhatIf(t, Change{Region: "task:row", Parallelize: 4})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(nt, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTargetParallelism10M runs the greedy what-if search on the
// same tree.
func BenchmarkTargetParallelism10M(b *testing.B) {
	t := bigTree()
	// Long serial code first, so that there is something to fix.
	t.Root.Children = append([]*tree.Node{tree.U(1_000_000_000)}, t.Root.Children...)
	a, err := Analyze(t, Options{})
	if err != nil {
		b.Fatal(err)
	}
	target := a.LockBound * 0.99 // below the lock bound: the search runs
	b.ResetTimer()
	for b.Loop() {
		p, _ := TargetParallelism(t, target, 4)
		if len(p.Changes) == 0 {
			b.Fatal("no change made")
		}
	}
}
