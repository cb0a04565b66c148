package emulate

import (
	"fmt"
	"sync"
	"testing"

	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

func TestBudget(t *testing.T) {
	for _, steps := range []float64{0, -1} {
		if b := NewBudget(steps, 0); b != nil || !b.Spend(1<<40) || b.Limit() != 0 || b.Used() != 0 {
			t.Errorf("NewBudget(%v, 0) = %v, want nil, which never runs out", steps, b)
		}
	}
	b := NewBudget(10_000, 0)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				b.Spend(10)
			}
		})
	}
	wg.Wait()
	if b.Used() != 10_000 || b.Limit() != 10_000 {
		t.Errorf("used %v of %v, want 10000 of 10000", b.Used(), b.Limit())
	}
	if !b.Spend(0) {
		t.Error("a budget spent to its limit still holds the steps already taken")
	}
	if b.Spend(1) {
		t.Error("a step past the limit: Spend reports the budget still held it")
	}
}

func ExampleBudget() {
	b := NewBudget(1000, 0)
	fmt.Println(b.Spend(600), b.Spend(600))
	// Output: true false
}

// spender is a SectionEmulator for tests that spends 1,000·threads²
// steps from its budget, 100 at a time, and runs out as ff does.
type spender struct{}

func (spender) Name() string { return "spender" }

func (spender) Section(sec *tree.Node, threads int, _ par.Schedule, _ float64, opt Options) (Section, error) {
	for k := 0; k < 10*threads*threads; k++ {
		if !opt.Budget.Spend(100) {
			return Section{}, fmt.Errorf("section %q: %w", sec.Name, ErrOverBudget)
		}
	}
	return Section{ParallelNs: float64(tree.Work(sec)) / float64(threads)}, nil
}

// TestRunSweepOverBudget: each row of a sweep has an allowance of its
// own and draws from a shared rest; on a budget too small for the tree
// written out once a row, the cheapest rows go first, and the rows that
// run out are left out with a note naming them.
func TestRunSweepOverBudget(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Run(10_000, tree.Task("t", tree.U(10)))))
	st := []par.Schedule{{Policy: par.Static}}
	// 16,000 steps for 4 rows: 2,000 each, 8,000 shared. The rows
	// cost 1,000, 4,000, 9,000 and 16,000 steps, and go cheapest
	// first: the first takes 1,000 of its own and leaves the other
	// 1,000 to the shared rest, the second takes 2,000 of the rest,
	// the third the other 7,000, and the fourth runs out after its own.
	b := NewBudget(16_000, 4)
	sw, err := RunSweep(tr, []SectionEmulator{spender{}}, []int{4, 1, 3, 2}, st, Options{Budget: b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range sw.Results {
		got = append(got, r.Threads)
	}
	if fmt.Sprint(got) != "[1 3 2]" {
		t.Errorf("rows predicted at %v threads, want [1 3 2] (in the order asked)", got)
	}
	want := "left out, over their share of the emulation budget: spender static at 4 threads (raise --budget to predict them)"
	if len(sw.Notes) != 1 || sw.Notes[0] != want {
		t.Errorf("notes %q, want [%q]", sw.Notes, want)
	}
	// Every row's steps, and the 100 the row that ran out took before
	// it found the budget spent.
	if b.Used() != 1_000+4_000+9_000+2_000+100 {
		t.Errorf("%v steps spent, want 16,100", b.Used())
	}
	// Beyond the rows it was made for, a row has no allowance of its
	// own and draws from the shared rest alone.
	small := NewBudget(1_000, 1)
	if r := small.row(); !r.Spend(500) || r.Spend(600) {
		t.Error("the one row's allowance (500) and the shared 500 do not hold 1,100 steps")
	}
	if r := small.row(); r.Spend(1) {
		t.Error("a second row of a budget made for one found steps left")
	}
}

// hoarder fails with ErrTooLarge at 4 threads or more, and runs out of
// its budget with spawn.
type hoarder struct{}

func (hoarder) Name() string { return "hoarder" }

func (hoarder) Section(sec *tree.Node, threads int, s par.Schedule, _ float64, opt Options) (Section, error) {
	if s.Policy == par.Spawn {
		return Section{}, fmt.Errorf("section %q: %w of 10 steps", sec.Name, ErrOverBudget)
	}
	if threads >= 4 {
		return Section{}, fmt.Errorf("%w: more than 8 goroutines at once", ErrTooLarge)
	}
	return Section{ParallelNs: float64(tree.Work(sec)) / float64(threads)}, nil
}

// TestRunSweepTooLarge checks that RunSweep leaves out the rows too large
// to emulate, as it does those over budget, with a note that says why
// and does not send the user to --budget.
func TestRunSweepTooLarge(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Run(100, tree.Task("t", tree.U(10)))))
	st := []par.Schedule{{Policy: par.Static}, {Policy: par.Spawn}}
	sw, err := RunSweep(tr, []SectionEmulator{hoarder{}}, []int{1, 2, 4, 8}, st, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range sw.Results {
		got = append(got, fmt.Sprintf("%s/%d", r.Schedule, r.Threads))
	}
	if fmt.Sprint(got) != "[static/1 static/2]" {
		t.Errorf("rows %v, want [static/1 static/2]", got)
	}
	want := []string{
		`left out: hoarder static at 4 and 8 threads (section "s": too large to emulate: more than 8 goroutines at once)`,
		"left out, over their share of the emulation budget: hoarder spawn at 1, 2, 4 and 8 threads (raise --budget to predict them)",
	}
	if fmt.Sprint(sw.Notes) != fmt.Sprint(want) {
		t.Errorf("notes %q, want %q", sw.Notes, want)
	}
}
