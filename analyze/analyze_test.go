package analyze

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

const ms = int64(1_000_000)

// triangular is the loop whose iteration i takes 8-i ms, i = 0..7.
func triangular() *tree.Tree {
	var tasks []*tree.Node
	for i := int64(8); i >= 1; i-- {
		tasks = append(tasks, tree.Task("row", tree.U(i*ms)))
	}
	return tree.New(tree.Sec("rows", tasks...))
}

func mustAnalyze(t *testing.T, tr *tree.Tree, opt Options) *Analysis {
	t.Helper()
	a, err := Analyze(tr, opt)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	return a
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestWorkSpan(t *testing.T) {
	tests := []struct {
		name        string
		tree        *tree.Tree
		work, span  int64
		parallelism float64
		lockBound   float64
	}{
		{"triangular 8..1 ms", triangular(), 36 * ms, 8 * ms, 4.5, 0},
		{"all one lock", tree.New(tree.Sec("s",
			tree.Run(4, tree.Task("t", tree.L(1, 10))))), 40, 10, 4, 1},
		{"two locks", tree.New(tree.Sec("s",
			tree.Run(4, tree.Task("t", tree.U(5), tree.L(1, 2), tree.L(2, 3))))), 40, 10, 4, 40.0 / 12},
		{"serial code in series", tree.New(tree.U(10), tree.Sec("s",
			tree.Run(4, tree.Task("t", tree.U(5)))), tree.U(7)), 37, 22, 37.0 / 22, 0},
		{"nested sections", tree.New(tree.Sec("outer",
			tree.Task("a", tree.U(2), tree.Sec("inner", tree.Task("b", tree.U(3)), tree.Task("b", tree.U(5))), tree.U(1)),
			tree.Task("a", tree.U(4)))), 15, 8, 15.0 / 8, 0},
		{"section strand before a task", tree.New(tree.Sec("s",
			tree.U(5), tree.Task("t", tree.U(3)), tree.U(1))), 9, 8, 9.0 / 8, 0},
		{"section strand longest", tree.New(tree.Sec("s",
			tree.Task("t", tree.U(3)), tree.U(4), tree.U(2))), 9, 6, 1.5, 0},
		{"nowait joined at next barrier", tree.New(tree.Sec("outer", tree.Task("t",
			tree.SecNowait("n", tree.U(1), tree.Task("x", tree.U(10))),
			tree.U(3),
			tree.Sec("b", tree.Task("y", tree.U(2)))))), 16, 11, 16.0 / 11, 0},
		{"nowait overlapping the rest of the task", tree.New(tree.Sec("outer", tree.Task("t",
			tree.SecNowait("n", tree.Task("x", tree.U(4)), tree.Task("x", tree.U(4))),
			tree.U(6)))), 14, 6, 14.0 / 6, 0},
		{"repeated nested nowait", tree.New(tree.Sec("outer", tree.Task("t",
			tree.Run(3, tree.SecNowait("n", tree.U(1), tree.Task("x", tree.U(10))))))), 33, 13, 33.0 / 13, 0},
		{"top-level nowait is joined", tree.New(
			tree.SecNowait("n", tree.Task("x", tree.U(10))), tree.U(3)), 13, 13, 1, 0},
		{"repeated top-level section", tree.New(tree.Run(3, tree.Sec("s",
			tree.Run(2, tree.Task("t", tree.U(4)))))), 24, 12, 2, 0},
		{"empty", tree.New(), 0, 0, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := mustAnalyze(t, tc.tree, Options{})
			if a.WorkNs != tc.work || a.SpanNs != tc.span {
				t.Errorf("work, span = %d, %d; want %d, %d", a.WorkNs, a.SpanNs, tc.work, tc.span)
			}
			if !near(a.Parallelism, tc.parallelism) {
				t.Errorf("parallelism = %g, want %g", a.Parallelism, tc.parallelism)
			}
			if !near(a.LockBound, tc.lockBound) {
				t.Errorf("lock bound = %g, want %g", a.LockBound, tc.lockBound)
			}
			if a.WorkNs != tree.Work(tc.tree.Root) {
				t.Errorf("work %d differs from tree.Work %d", a.WorkNs, tree.Work(tc.tree.Root))
			}
		})
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name         string
		tree         *tree.Tree
		ov           machine.Overheads
		threads      int
		lower, upper float64
	}{
		// Triangular: T1 = 36, T∞ = 8 (ms).
		{"triangular P=1", triangular(), machine.Overheads{}, 1, 36.0 / 44, 1},
		{"triangular P=2", triangular(), machine.Overheads{}, 2, 36.0 / 26, 2},
		{"triangular P=8", triangular(), machine.Overheads{}, 8, 36.0 / 12.5, 4.5},
		// All tasks hold lock 1: the lock bounds speedup at 1, whatever P.
		{"one lock P=4", tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.L(1, 10))))),
			machine.Overheads{}, 4, 1, 1},
		// Serial code then a section: T1/(10 + max(40/4, 5)).
		{"serial plus section P=4", tree.New(tree.U(10), tree.Sec("s", tree.Run(8, tree.Task("t", tree.U(5))))),
			machine.Overheads{}, 4, 50.0 / (12.5 + 15), 50.0 / 20},
		// Burdened span 1000+100+50+10 = 1160.
		{"burdened", tree.New(tree.Sec("s", tree.Task("t", tree.U(1000)), tree.Task("t", tree.U(1000)))),
			machine.Overheads{ForkNs: 100, JoinNs: 50, SpawnNs: 10, ChunkNs: 5}, 2, 2000.0 / (1000 + 1160), 2},
		// The wake chain: one team start on the path, its last worker
		// woken 6 steps of 100 ns after the second at P = 8: 4000 /
		// (500 + 1000 + 600); at P = 2 no step.
		{"wake chain P=8", tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(1000))))),
			machine.Overheads{WakeStepNs: 100}, 8, 4000.0 / 2100, 4},
		{"wake chain P=2", tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(1000))))),
			machine.Overheads{WakeStepNs: 100}, 2, 4000.0 / 3000, 2},
		// Two starts on the path, one inside the other: T1 = 4000, B =
		// 1000 (the outer team's two tasks each run an inner team of
		// two), chain 2 · 2 · 100 at P = 4: 4000 / (1000 + 1000 + 400).
		{"nested wake chain P=4", tree.New(tree.Sec("outer", tree.Run(2, tree.Task("o",
			tree.Sec("inner", tree.Run(2, tree.Task("i", tree.U(1000)))))))),
			machine.Overheads{WakeStepNs: 100}, 4, 4000.0 / 2400, 4},
		// Two starts one after another: the same count.
		{"sequential wake chain P=4", tree.New(
			tree.Sec("a", tree.Run(4, tree.Task("t", tree.U(500)))),
			tree.Sec("b", tree.Run(4, tree.Task("t", tree.U(500))))),
			machine.Overheads{WakeStepNs: 100}, 4, 4000.0 / 2400, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := mustAnalyze(t, tc.tree, Options{Overheads: tc.ov, Threads: []int{tc.threads}})
			if len(a.Bounds) != 1 {
				t.Fatalf("got %d bounds, want 1", len(a.Bounds))
			}
			b := a.Bounds[0]
			if b.Threads != tc.threads || !near(b.Lower, tc.lower) || !near(b.Upper, tc.upper) {
				t.Errorf("bound = %+v, want lower %g upper %g", b, tc.lower, tc.upper)
			}
			if b.Lower > b.Upper {
				t.Errorf("lower %g above upper %g", b.Lower, b.Upper)
			}
			// The upper bound is never above Cilkview's min(P, T1/T∞, lock).
			cv := math.Min(float64(tc.threads), a.Parallelism)
			if a.LockBound > 0 {
				cv = math.Min(cv, a.LockBound)
			}
			if b.Upper > cv*(1+1e-12) {
				t.Errorf("upper %g above min(P, parallelism, lock bound) = %g", b.Upper, cv)
			}
		})
	}
}

func TestBurdenedSpan(t *testing.T) {
	ov := machine.Overheads{ForkNs: 100, JoinNs: 50, SpawnNs: 10, ChunkNs: 5, LockNs: 1}
	tests := []struct {
		name string
		tree *tree.Tree
		want int64
	}{
		{"fork join task", tree.New(tree.Sec("s", tree.Task("t", tree.U(1000)), tree.Task("t", tree.L(1, 500)))), 1160},
		{"nowait has no join", tree.New(tree.SecNowait("s", tree.Task("t", tree.U(1000)))), 1110},
		{"lock cost on the path", tree.New(tree.Sec("s", tree.Task("t", tree.L(1, 500), tree.L(1, 500)))), 1162},
		{"nested sections charged on the path", tree.New(tree.Sec("s", tree.Task("t",
			tree.Sec("in", tree.Task("u", tree.U(100)))))), 100 + 150 + 10 + 150 + 10},
		{"serial code", tree.New(tree.U(7)), 7},
		{"wake-up and runnext back-off with the fork", tree.New(tree.Sec("s", tree.Task("t", tree.U(1000)))), 1160 + 20 + 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ov := ov
			if strings.HasPrefix(tc.name, "wake-up") {
				ov.WakeP50Ns, ov.RunnextNs = 20, 30
			}
			a := mustAnalyze(t, tc.tree, Options{Overheads: ov})
			if a.BurdenedSpanNs != tc.want {
				t.Errorf("burdened span = %d, want %d", a.BurdenedSpanNs, tc.want)
			}
			z := mustAnalyze(t, tc.tree, Options{})
			if z.BurdenedSpanNs != z.SpanNs {
				t.Errorf("with no overheads burdened span %d != span %d", z.BurdenedSpanNs, z.SpanNs)
			}
		})
	}
}

// expand returns a deep copy of n with every run expanded and nothing
// shared.
func expand(n *tree.Node) *tree.Node {
	m := &tree.Node{Kind: n.Kind, Name: n.Name, Nowait: n.Nowait, Lock: n.Lock, Len: n.Len, Count: 1}
	for c := range n.Expanded() {
		m.Children = append(m.Children, expand(c))
	}
	return m
}

func TestCompressedEqualsExpanded(t *testing.T) {
	shared := tree.Task("leaf", tree.U(3), tree.L(2, 1))
	inner := tree.Sec("inner", tree.Run(5, shared), tree.U(2))
	tests := []struct {
		name string
		tree *tree.Tree
	}{
		{"runs of tasks", tree.New(tree.U(4), tree.Sec("s",
			tree.U(1), tree.Run(100, tree.Task("a", tree.U(7))), tree.Run(3, tree.Task("b", tree.U(50), tree.L(1, 2)))))},
		{"shared subtrees", tree.New(
			tree.Sec("x", tree.Task("t", inner), tree.Run(2, tree.Task("t", tree.U(1), inner))),
			tree.Run(2, tree.Sec("y", tree.Run(3, tree.Task("t", tree.Run(2, inner))), shared)))},
		{"repeated nowait", tree.New(tree.Sec("o", tree.Run(4, tree.Task("t",
			tree.Run(3, tree.SecNowait("n", tree.U(1), tree.Run(2, tree.Task("x", tree.U(10))))), tree.U(2)))))},
	}
	ov := machine.Overheads{ForkNs: 10, JoinNs: 5, SpawnNs: 3, LockNs: 1}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustAnalyze(t, tc.tree, Options{Overheads: ov})
			full := &tree.Tree{Root: expand(tc.tree.Root)}
			want := mustAnalyze(t, full, Options{Overheads: ov})
			if got.Nodes >= want.Nodes {
				t.Errorf("compressed tree analyzed %d nodes, expanded %d: runs or sharing were expanded", got.Nodes, want.Nodes)
			}
			var gw, ww int64
			for _, s := range got.Sections {
				gw += s.WorkNs
			}
			for _, s := range want.Sections {
				ww += s.WorkNs
			}
			if gw != ww {
				t.Errorf("sections' work %d, expanded %d", gw, ww)
			}
			// Runs of top-level sections stay one entry when compressed.
			got.Nodes, want.Nodes = 0, 0
			got.top, want.top = nil, nil
			got.Sections, want.Sections = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("compressed analysis\n%+v\ndiffers from expanded\n%+v", got, want)
			}
		})
	}
}

func TestRegions(t *testing.T) {
	// Serial code 10, then 4 row tasks of 3 with 1 under lock, then a
	// section whose strand is 2 and whose tasks are 1.
	tr := tree.New(
		tree.U(10),
		tree.Sec("rows", tree.Run(4, tree.Task("row", tree.U(2), tree.L(1, 1)))),
		tree.Sec("tail", tree.U(2), tree.Run(2, tree.Task("t", tree.U(1)))),
	)
	a := mustAnalyze(t, tr, Options{})
	want := []Region{
		{Name: "serial", Instances: 1, WorkNs: 10, SpanNs: 10, Parallelism: 1, OnSpanNs: 10, SelfWorkNs: 10, SelfOnSpanNs: 10},
		{Name: "task:row", Instances: 4, WorkNs: 12, SpanNs: 12, Parallelism: 1, OnSpanNs: 3, SelfWorkNs: 12, SelfOnSpanNs: 3},
		{Name: "sec:tail", Instances: 1, WorkNs: 4, SpanNs: 3, Parallelism: 4.0 / 3, OnSpanNs: 3, SelfWorkNs: 2, SelfOnSpanNs: 2},
		{Name: "task:t", Instances: 2, WorkNs: 2, SpanNs: 2, Parallelism: 1, OnSpanNs: 1, SelfWorkNs: 2, SelfOnSpanNs: 1},
		{Name: "sec:rows", Instances: 1, WorkNs: 12, SpanNs: 3, Parallelism: 4, OnSpanNs: 3, SelfWorkNs: 0, SelfOnSpanNs: 0},
	}
	if !reflect.DeepEqual(a.Regions, want) {
		t.Errorf("regions:\n got %+v\nwant %+v", a.Regions, want)
	}
	var onSelf int64
	for _, r := range a.Regions {
		onSelf += r.SelfOnSpanNs
	}
	if onSelf != a.SpanNs {
		t.Errorf("own work on the critical path sums to %d, span is %d", onSelf, a.SpanNs)
	}
	if got := a.Sections; len(got) != 2 || got[0].Name != "rows" || got[0].SpanNs != 3 || got[0].MaxLockNs != 4 || got[1].SpanNs != 3 {
		t.Errorf("sections = %+v", got)
	}
}

func TestRecursiveRegionCountedOnce(t *testing.T) {
	// A recursive section: sec:qs inside task:half inside sec:qs.
	leaf := tree.Sec("qs", tree.Run(2, tree.Task("half", tree.U(4))))
	mid := tree.Sec("qs", tree.U(2), tree.Run(2, tree.Task("half", leaf)))
	top := tree.Sec("qs", tree.U(4), tree.Run(2, tree.Task("half", mid)))
	a := mustAnalyze(t, tree.New(top), Options{})
	// work 4 + 2·(2 + 2·8) = 40; span 4 + 2 + 4 = 10.
	if a.WorkNs != 40 || a.SpanNs != 10 {
		t.Fatalf("work, span = %d, %d; want 40, 10", a.WorkNs, a.SpanNs)
	}
	qs, _ := a.Region("sec:qs")
	if qs.Instances != 1 || qs.WorkNs != 40 || qs.SpanNs != 10 || qs.OnSpanNs != 10 || qs.SelfWorkNs != 8 || qs.SelfOnSpanNs != 6 {
		t.Errorf("sec:qs = %+v", qs)
	}
	half, _ := a.Region("task:half")
	if half.Instances != 2 || half.WorkNs != 36 || half.OnSpanNs != 6 || half.SelfOnSpanNs != 4 {
		t.Errorf("task:half = %+v", half)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	tests := []struct {
		name string
		tree *tree.Tree
		want string
	}{
		{"nil tree", nil, "empty"},
		{"task at top level", tree.New(tree.Task("t", tree.U(1))), "Task node inside Root"},
		{"section in section", tree.New(tree.Sec("a", tree.Sec("b"))), `Sec node inside section "a"`},
		{"negative length", tree.New(tree.U(-1)), "negative"},
		{"root not a root", &tree.Tree{Root: tree.U(1)}, "root is a U node"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Analyze(tc.tree, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestWhatIf(t *testing.T) {
	tests := []struct {
		name       string
		tree       *tree.Tree
		change     Change
		work, span int64
	}{
		{"triangular rows 2x faster", triangular(), Change{Region: "task:row", Faster: 2}, 18 * ms, 4 * ms},
		{"faster includes nested regions", tree.New(tree.Sec("s", tree.Task("t", tree.U(10),
			tree.Sec("in", tree.Task("u", tree.U(20)))))), Change{Region: "task:t", Faster: 10}, 3, 3},
		{"bare name", triangular(), Change{Region: "row", Faster: 4}, 9 * ms, 2 * ms},
		{"parallelize serial code", tree.New(tree.U(12), tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(2))))),
			Change{Region: "serial", Parallelize: 4}, 20, 5},
		{"parallelize a task", tree.New(tree.Sec("s", tree.Task("big", tree.U(100)), tree.Run(3, tree.Task("small", tree.U(10))))),
			Change{Region: "task:big", Parallelize: 4}, 130, 25},
		{"parallelize with remainder", tree.New(tree.Sec("s", tree.Task("big", tree.U(10)))),
			Change{Region: "task:big", Parallelize: 4}, 10, 3},
		{"parallelize repeated U", tree.New(tree.Sec("s", tree.Task("big", tree.Run(3, tree.U(8)), tree.L(1, 2)))),
			Change{Region: "task:big", Parallelize: 4}, 26, 3*2 + 2},
		{"parallelize a section strand", tree.New(tree.Sec("s", tree.U(40), tree.Task("t", tree.U(10)))),
			Change{Region: "sec:s", Parallelize: 4}, 50, 10},
		{"parallelize repeated strand", tree.New(tree.Sec("s", tree.Run(2, tree.U(40)), tree.Task("t", tree.U(1)))),
			Change{Region: "sec:s", Parallelize: 8}, 81, 5},
		{"parallelize leaves locks alone", tree.New(tree.Sec("s", tree.Task("t", tree.L(1, 9)))),
			Change{Region: "task:t", Parallelize: 3}, 9, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := mustAnalyze(t, tc.tree, Options{})
			nt, err := WhatIf(tc.tree, tc.change)
			if err != nil {
				t.Fatalf("WhatIf: %v", err)
			}
			a := mustAnalyze(t, nt, Options{})
			if a.WorkNs != tc.work || a.SpanNs != tc.span {
				t.Errorf("after: work, span = %d, %d; want %d, %d", a.WorkNs, a.SpanNs, tc.work, tc.span)
			}
			again := mustAnalyze(t, tc.tree, Options{})
			again.top, before.top = nil, nil
			if !reflect.DeepEqual(before, again) {
				t.Errorf("WhatIf changed its input tree")
			}
		})
	}
}

func TestWhatIfSharesUnchanged(t *testing.T) {
	other := tree.Sec("other", tree.Run(10, tree.Task("o", tree.U(5))))
	tr := tree.New(other, tree.Sec("s", tree.Task("t", tree.U(8))))
	nt, err := WhatIf(tr, Change{Region: "task:t", Faster: 2})
	if err != nil {
		t.Fatal(err)
	}
	if nt.Root.Children[0] != other {
		t.Errorf("unchanged section was copied")
	}
	if nt.Root.Children[1] == tr.Root.Children[1] || tr.Root.Children[1].Children[0].Children[0].Len != 8 {
		t.Errorf("changed section shared or input modified")
	}
}

func TestWhatIfErrors(t *testing.T) {
	tr := tree.New(tree.Sec("rows", tree.Task("row", tree.U(1))), tree.Sec("cols", tree.Task("rows", tree.U(1))))
	tests := []struct {
		name   string
		change Change
		want   []string
	}{
		{"typo lists similar", Change{Region: "task:rwo", Faster: 2}, []string{`no region "task:rwo"`, "did you mean", "task:row"}},
		{"unknown lists all", Change{Region: "zzzzzzzzzz", Faster: 2}, []string{"the regions are", "sec:cols", "task:row"}},
		{"ambiguous bare name", Change{Region: "rows", Faster: 2}, []string{"ambiguous", "sec:rows", "task:rows"}},
		{"both changes", Change{Region: "task:row", Faster: 2, Parallelize: 2}, []string{"not both"}},
		{"no change", Change{Region: "task:row"}, []string{"no change"}},
		{"negative faster", Change{Region: "task:row", Faster: -1}, []string{"positive"}},
		{"negative parallelize", Change{Region: "task:row", Parallelize: -2}, []string{"at least 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := WhatIf(tr, tc.change)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestTargetParallelism(t *testing.T) {
	rows := func() *tree.Tree {
		return tree.New(tree.U(50), tree.Sec("rows", tree.Run(100, tree.Task("row", tree.U(10)))))
	}
	t.Run("reached", func(t *testing.T) {
		// T1 = 1050, T∞ = 60: 17.5. Splitting the serial code 50 ways
		// gives T∞ = 11.
		p, err := TargetParallelism(rows(), 50, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []Change{{Region: "serial", Parallelize: 50}}
		if !p.Reached || !reflect.DeepEqual(p.Changes, want) || !near(p.Before, 17.5) || !near(p.After, 1050.0/11) {
			t.Errorf("plan = %+v", p)
		}
	})
	t.Run("two regions", func(t *testing.T) {
		// serial split 10 ways (T∞ 15, 70), then row split 10 ways
		// (T∞ 6, 175).
		p, err := TargetParallelism(rows(), 150, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []Change{{Region: "serial", Parallelize: 10}, {Region: "task:row", Parallelize: 10}}
		if !p.Reached || !reflect.DeepEqual(p.Changes, want) || !near(p.After, 175) {
			t.Errorf("plan = %+v", p)
		}
		a := mustAnalyze(t, p.Tree, Options{})
		if a.WorkNs != 1050 || a.SpanNs != 6 {
			t.Errorf("planned tree: work, span = %d, %d; want 1050, 6", a.WorkNs, a.SpanNs)
		}
	})
	t.Run("already there", func(t *testing.T) {
		p, err := TargetParallelism(rows(), 10, 0)
		if err != nil || !p.Reached || len(p.Changes) != 0 || p.Tree == nil {
			t.Errorf("plan = %+v, err %v", p, err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		p, err := TargetParallelism(rows(), 1000, 0)
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("err = %v, want ErrUnreachable", err)
		}
		if p.Reached || len(p.Changes) != 2 || p.After <= p.Before {
			t.Errorf("plan = %+v", p)
		}
	})
	t.Run("lock bound", func(t *testing.T) {
		tr := tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(1), tree.L(1, 10)))))
		_, err := TargetParallelism(tr, 2, 0)
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "lock 1") {
			t.Fatalf("err = %v, want ErrUnreachable naming lock 1", err)
		}
	})
	t.Run("bad target", func(t *testing.T) {
		if _, err := TargetParallelism(rows(), -1, 0); err == nil {
			t.Error("no error for a negative target")
		}
	})
}
