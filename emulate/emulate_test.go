package emulate

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// ideal is a SectionEmulator for tests: a section takes its work divided
// by the thread count, times the burden factor.
type ideal struct{ limit int }

func (ideal) Name() string { return "ideal" }

func (e ideal) MaxThreads() int { return e.limit }

func (ideal) Section(sec *tree.Node, threads int, _ par.Schedule, burden float64, _ Options) (Section, error) {
	one := float64(tree.Work(sec)) / float64(sec.Reps())
	return Section{ParallelNs: one * burden / float64(threads)}, nil
}

type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Section(*tree.Node, int, par.Schedule, float64, Options) (Section, error) {
	return Section{}, errors.New("boom")
}

func TestPredictFormula(t *testing.T) {
	// 10 serial + a section of 4×10 run 3 times + 20 serial:
	// serial 150; at 4 threads 10 + 3·10 + 20 = 60.
	tr := tree.New(tree.U(10), tree.Run(3, tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(10))))), tree.U(20))
	r, err := Predict(ideal{}, tr, 4, par.Schedule{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.SerialNs != 150 || r.ParallelNs != 60 || r.Speedup != 2.5 || r.MemoryModel {
		t.Errorf("got serial %v parallel %v speedup %v memory %v; want 150, 60, 2.5, false", r.SerialNs, r.ParallelNs, r.Speedup, r.MemoryModel)
	}
	if len(r.Sections) != 1 || r.Sections[0].Count != 3 || r.Sections[0].SerialNs != 120 || r.Sections[0].ParallelNs != 30 {
		t.Errorf("sections %+v", r.Sections)
	}
}

// batching is ideal as a Batcher that records its calls and the gaps it
// was given.
type batching struct {
	ideal
	calls *[]int
	gaps  *[]float64
}

func (b batching) Sections(secs []*tree.Node, threads int, sched par.Schedule, burdens, gaps []float64, opt Options) ([]Section, error) {
	*b.calls = append(*b.calls, len(secs))
	*b.gaps = append(*b.gaps, gaps...)
	out := make([]Section, len(secs))
	for i, sec := range secs {
		s, err := b.Section(sec, threads, sched, burdens[i], opt)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func TestPredictBatcher(t *testing.T) {
	// The same tree as TestPredictFormula with a second section: the
	// batcher gets both sections in one call, and the answer is the
	// same as one section at a time.
	tr := tree.New(tree.U(10), tree.Run(3, tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(10))))), tree.U(20),
		tree.Sec("u", tree.Run(2, tree.Task("t", tree.U(8)))))
	var calls []int
	var gaps []float64
	got, err := Predict(batching{calls: &calls, gaps: &gaps}, tr, 4, par.Schedule{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Predict(ideal{}, tr, 4, par.Schedule{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != 2 {
		t.Errorf("Sections calls %v, want one with 2 sections", calls)
	}
	// The serial time before each section: U(10) before s, U(20)
	// between s and u.
	if len(gaps) != 2 || gaps[0] != 10 || gaps[1] != 20 {
		t.Errorf("gaps %v, want [10 20]", gaps)
	}
	if got.ParallelNs != want.ParallelNs || got.Speedup != want.Speedup || len(got.Sections) != 2 || got.Sections[1].Name != "u" {
		t.Errorf("batched %+v, want %+v", got, want)
	}
}

func TestPredictBurden(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(10)))))
	opt := Options{Burden: func(sec *tree.Node, threads int) float64 { return 1 + 0.5*float64(threads-1) }}
	r, err := Predict(ideal{}, tr, 2, par.Schedule{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	// 40 of work at 2 threads stretched by 1.5: 30.
	if r.ParallelNs != 30 || !r.MemoryModel || r.Sections[0].Burden != 1.5 {
		t.Errorf("got parallel %v memory %v burden %v; want 30, true, 1.5", r.ParallelNs, r.MemoryModel, r.Sections[0].Burden)
	}
	opt.Burden = func(*tree.Node, int) float64 { return 0.5 } // never below 1
	if r, _ := Predict(ideal{}, tr, 2, par.Schedule{}, opt); r.ParallelNs != 20 || r.MemoryModel {
		t.Errorf("a burden below 1 was applied: %+v", r)
	}
}

func TestPredictErrors(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Task("t", tree.U(1))))
	if _, err := Predict(ideal{}, tr, 0, par.Schedule{}, Options{}); err == nil {
		t.Error("0 threads accepted")
	}
	if _, err := Predict(ideal{}, &tree.Tree{}, 1, par.Schedule{}, Options{}); err == nil {
		t.Error("empty tree accepted")
	}
	if _, err := Predict(failing{}, tr, 1, par.Schedule{}, Options{}); err == nil || !strings.Contains(err.Error(), `section "s"`) {
		t.Errorf("error %v does not name the section", err)
	}
}

func TestRunSweepSkipsBeyondLimit(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Run(8, tree.Task("t", tree.U(10)))))
	scheds := []par.Schedule{{Policy: par.Static}, {Policy: par.Dynamic, Chunk: 1}}
	calls := 0
	sw, err := RunSweep(tr, []SectionEmulator{ideal{}, ideal{limit: 2}}, []int{1, 2, 4}, scheds, Options{}, func(done, total int) {
		calls++
		if total != 12 || done > total {
			t.Errorf("progress %d/%d", done, total)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Results) != 6+4 {
		t.Errorf("%d results, want 10 (the limited emulator skips 4 threads)", len(sw.Results))
	}
	if len(sw.Notes) != 1 || !strings.Contains(sw.Notes[0], "up to 2 threads") || !strings.Contains(sw.Notes[0], "[4]") {
		t.Errorf("notes %q", sw.Notes)
	}
	for _, r := range sw.Results {
		if want := float64(r.Threads); math.Abs(r.Speedup-want) > 1e-12 {
			t.Errorf("%s %s %d: speedup %v, want %v", r.Emulator, r.Schedule, r.Threads, r.Speedup, want)
		}
	}
	if calls != 10 {
		t.Errorf("progress called %d times, want 10", calls)
	}
}

// TestRunSweepNamesFailedRow: a prediction that fails fails the sweep
// with a RowError naming the emulator, schedule and thread count, and
// wrapping the emulator's error.
func TestRunSweepNamesFailedRow(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Task("t", tree.U(1))))
	dyn := par.Schedule{Policy: par.Dynamic, Chunk: 3}
	_, err := RunSweep(tr, []SectionEmulator{failing{}}, []int{2}, []par.Schedule{dyn}, Options{}, nil)
	var row *RowError
	if !errors.As(err, &row) || row.Emulator != "failing" || row.Schedule != dyn || row.Threads != 2 {
		t.Fatalf("error %v (%T), want a RowError naming failing, dynamic:3, 2 threads", err, err)
	}
	if !strings.Contains(err.Error(), "failing, dynamic:3, 2 threads: ") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("message %q", err)
	}
}
