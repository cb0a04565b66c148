package ff

import (
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// TestTaskCallCharged checks, on trees worked out by hand, that every
// task of a worksharing schedule pays TaskCallNs at its start, nested
// sections' tasks included, and that a spawned task does not.
func TestTaskCallCharged(t *testing.T) {
	loop := func() *tree.Tree { return tree.New(tree.Sec("loop", tree.Run(4, tree.Task("t", tree.U(10))))) }
	nested := func() *tree.Tree {
		return tree.New(tree.Sec("outer", tree.Task("o", tree.U(7), tree.Sec("inner", tree.Run(2, tree.Task("i", tree.U(10)))))))
	}
	tests := []struct {
		name     string
		tr       func() *tree.Tree
		threads  int
		sched    string
		parallel float64
	}{
		// Two workers of two tasks of 5 + 10 ns each.
		{"static", loop, 2, "static", 30},
		{"static:1", loop, 2, "static:1", 30},
		{"dynamic:1", loop, 2, "dynamic:1", 30},
		{"guided:1", loop, 2, "guided:1", 30},
		{"pool", loop, 2, "pool", 30},
		// One worker: four tasks of 15.
		{"one thread", loop, 1, "static", 60},
		// A goroutine's start holds its call: two tasks of 10 a core.
		{"spawn", loop, 2, "spawn", 20},
		// The outer task's call, its 7 ns, then the inner section's two
		// tasks of 5 + 10 on the same worker.
		{"nested", nested, 1, "static", 5 + 7 + 2*15},
	}
	for _, tc := range tests {
		sc, err := par.ParseSchedule(tc.sched)
		if err != nil {
			t.Fatal(err)
		}
		e := New()
		e.exactGrid = true
		res, err := emulate.Predict(e, tc.tr(), tc.threads, sc, emulate.Options{Overheads: machine.Overheads{TaskCallNs: 5}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.ParallelNs != tc.parallel {
			t.Errorf("%s: parallel time %v ns, want %v", tc.name, res.ParallelNs, tc.parallel)
		}
		if want := float64(tree.Work(tc.tr().Root)); res.SerialNs != want {
			t.Errorf("%s: serial time %v ns, want the recording's %v", tc.name, res.SerialNs, want)
		}
	}
}

// TestCalledKeepsSharing checks that calledFrom copies a node with several
// parents once, so that the copy is as small as the section, lengthens a
// task's first U or puts a U before a first child that is not one, and
// leaves the section itself alone.
func TestCalledKeepsSharing(t *testing.T) {
	inner := tree.Sec("inner", tree.Run(3, tree.Task("i", tree.U(10))))
	sec := tree.Sec("outer", tree.Task("a", inner), tree.Task("b", inner))
	c, _ := calledFrom(sec, 4)
	a, b := c.Children[0], c.Children[1]
	if a.Children[1] != b.Children[1] {
		t.Errorf("the shared inner section was copied twice")
	}
	if got := a.Children[0]; got.Kind != tree.KindU || got.Len != 4 {
		t.Errorf("task a starts with %v, want a U of 4 ns", got)
	}
	if in := a.Children[1].Children[0]; in.Count != 3 || len(in.Children) != 1 || in.Children[0].Len != 14 {
		t.Errorf("inner run %+v: want a run of 3 tasks of one U of 10 + 4 ns", in)
	}
	rep := tree.Task("r", tree.Run(2, tree.U(10)), tree.L(1, 5))
	set := tree.Task("s", tree.Setup(10), tree.U(5))
	c, _ = calledFrom(tree.Sec("kinds", rep, set), 4)
	for i, k := range c.Children {
		if got := k.Children[0]; got.Kind != tree.KindU || got.Len != 4 || len(k.Children) != 3 {
			t.Errorf("task %d: children %v: want a U of 4 ns before its repeated U or its setup", i, k.Children)
		}
	}
	if len(sec.Children[0].Children) != 1 || tree.Work(sec) != 60 || rep.Children[0].Len != 10 {
		t.Errorf("calledFrom changed the section it copied")
	}
	if c, from := calledFrom(sec, 0); c != sec || from != nil {
		t.Errorf("calledFrom with no cost copied the section")
	}
}

// TestSpawnCallUnchanged checks that a spawn or errgroup loop, emulated
// on the compact copy with the task call in it and SpawnRunNs less the
// call, predicts what it predicts without the call, exactly, on trees
// with locks and nested sections, under a memory burden too.
func TestSpawnCallUnchanged(t *testing.T) {
	tr := tree.New(
		tree.U(300),
		tree.Sec("loop",
			tree.Run(40, tree.Task("t", tree.U(900), tree.L(1, 200), tree.U(300))),
			tree.Run(25, tree.Task("u", tree.U(1500))),
			tree.Task("n", tree.U(100), tree.Sec("in", tree.Run(6, tree.Task("i", tree.U(700), tree.L(2, 90))))),
		),
	)
	ov := machine.Overheads{SpawnNs: 150, SpawnRunNs: 400, SpawnRunSlope: 0.1, SpawnRunTaskNs: 2000, JoinNs: 3000, LockNs: 10, LockMigrateNs: 30}
	for _, s := range []string{"spawn", "errgroup"} {
		sc, err := par.ParseSchedule(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2, 4} {
			for _, burden := range []float64{1, 1.25} {
				predict := func(call float64) float64 {
					o := ov
					o.TaskCallNs = call
					e := New()
					e.WakeSamples = 1
					r, err := e.section(tr.Root.Children[1], threads, sc, burden, e.charges(o), nil, 0, -1)
					if err != nil {
						t.Fatal(err)
					}
					return r.parallel
				}
				if a, b := predict(0), predict(4); a != b {
					t.Errorf("%s, %d threads, burden %v: %v ns without the call, %v with it", s, threads, burden, a, b)
				}
			}
		}
	}
}
