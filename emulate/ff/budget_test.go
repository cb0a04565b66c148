package ff

import (
	"errors"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// alternating is a loop of n tasks whose lengths alternate, so that no
// two neighbours form a run: ff takes a step or more per task.
func alternating(n int) *tree.Node {
	tasks := make([]*tree.Node, n)
	for i := range tasks {
		tasks[i] = tree.Task("t", tree.U(int64(300+i%2)))
	}
	return tree.Sec("loop", tasks...)
}

// TestBudgetStops: an emulation spends its steps from the budget in its
// options and stops, with an error matching ErrOverBudget, once the
// budget is spent; a budget it stays within changes nothing.
func TestBudgetStops(t *testing.T) {
	sec := alternating(20_000)
	ov := machine.Default().Overheads
	sc := par.Schedule{Policy: par.Spawn}
	free, err := New().Section(sec, 16, sc, 1, emulate.Options{Overheads: ov})
	if err != nil {
		t.Fatal(err)
	}
	small := emulate.NewBudget(5_000, 0)
	if _, err := New().Section(sec, 16, sc, 1, emulate.Options{Overheads: ov, Budget: small}); !errors.Is(err, emulate.ErrOverBudget) {
		t.Errorf("budget of 5,000 steps for 20,000 spawns: err %v, want ErrOverBudget", err)
	}
	if small.Used() > small.Limit()+budgetEvery {
		t.Errorf("spent %v steps of a budget of %v", small.Used(), small.Limit())
	}
	large := emulate.NewBudget(1e9, 0)
	got, err := New().Section(sec, 16, sc, 1, emulate.Options{Overheads: ov, Budget: large})
	if err != nil {
		t.Fatal(err)
	}
	if got != free {
		t.Errorf("within the budget: %+v, without one: %+v", got, free)
	}
	if large.Used() < 20_000-budgetEvery {
		t.Errorf("20,000 spawns spent %v steps, want one or more each", large.Used())
	}
}

// TestLoneDynamic: a lone worker takes a dynamic loop's chunks one after
// the other at no cost, which is static's single block: the same
// prediction, taken in as few steps as static takes.
func TestLoneDynamic(t *testing.T) {
	sec := tree.Sec("s",
		tree.U(40),
		tree.Run(1_000_000, tree.Task("a", tree.U(300))),
		tree.Task("b", tree.U(10), tree.L(0, 20), tree.U(5)),
		tree.Run(3, tree.Task("c", tree.U(7), tree.Sec("inner", tree.Run(9, tree.Task("d", tree.U(11)))))),
		tree.Run(1_000_000, tree.Task("e", tree.U(123))),
	)
	ov := machine.Default().Overheads
	want, err := New().Section(sec, 1, par.Schedule{Policy: par.Static}, 1, emulate.Options{Overheads: ov})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{1, 7, 1 << 20} {
		b := emulate.NewBudget(1e4, 0)
		got, err := New().Section(sec, 1, par.Schedule{Policy: par.Dynamic, Chunk: c}, 1, emulate.Options{Overheads: ov, Budget: b})
		if err != nil {
			t.Errorf("dynamic:%d: %v", c, err)
			continue
		}
		if got != want {
			t.Errorf("dynamic:%d at 1 thread: %+v, want static's %+v", c, got, want)
		}
	}
}

// TestTooManyGoroutines checks that an emulation that would hold more
// goroutines at once than its bound fails with emulate.ErrTooLarge: a
// spawn loop whose tasks hold a lock far longer than a spawn takes, so
// that the spawner outruns the lock and nearly every goroutine waits
// for it; and that the same loop
// under a bound it stays within, or under a worksharing schedule (a
// goroutine per thread), does not.
func TestTooManyGoroutines(t *testing.T) {
	sec := tree.Sec("loop", tree.Run(5000, tree.Task("t", tree.U(100), tree.L(1, 2000), tree.U(100))))
	ov := machine.Default().Overheads
	for _, c := range []struct {
		sched string
		maxG  int
		large bool
	}{
		{"spawn", 300, true},
		{"spawn", 10000, false},
		{"static", 8, false},
		{"dynamic:1", 8, false},
	} {
		e := New()
		e.maxG = c.maxG
		_, err := e.section(sec, 2, sched(t, c.sched), 1, e.charges(ov), nil, 0, -1)
		if got := errors.Is(err, emulate.ErrTooLarge); got != c.large {
			t.Errorf("%s with at most %d goroutines: error %v, want too large: %v", c.sched, c.maxG, err, c.large)
		}
		if !c.large && err != nil {
			t.Errorf("%s with at most %d goroutines: %v", c.sched, c.maxG, err)
		}
	}
}
