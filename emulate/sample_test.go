package emulate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// TestSampleSection checks the windows a sample takes, worked out by
// hand: 40 tasks in runs of 10, 5 and 25 after the section's own U; 8
// tasks in 4 windows of 2, starting at tasks 0, 10, 20 and 30.
func TestSampleSection(t *testing.T) {
	a := tree.Run(10, tree.Task("a", tree.U(1)))
	b := tree.Run(5, tree.Task("b", tree.U(2)))
	c := tree.Run(25, tree.Task("c", tree.U(3)))
	sec := tree.Run(3, tree.Sec("s", tree.U(100), a, b, c, tree.U(7)))
	got := sampleSection(sec, 8, 4)
	var kids []string
	for _, k := range got.Children {
		name := k.Name
		if k.Kind == tree.KindU {
			name = fmt.Sprintf("U%d", k.Len)
		}
		kids = append(kids, fmt.Sprintf("%s×%d", name, k.Count))
	}
	if want := "[U100×1 a×2 b×2 c×2 c×2]"; fmt.Sprint(kids) != want {
		t.Errorf("sample %v, want %v", kids, want)
	}
	if got.Count != 3 || got.Name != "s" || tasks(got) != 8 || tasks(sec) != 40 {
		t.Errorf("sample: count %d, name %q, %d tasks of %d; want 3, s, 8 of 40", got.Count, got.Name, tasks(got), tasks(sec))
	}
	if a.Count != 10 || c.Count != 25 || len(sec.Children) != 5 {
		t.Error("sampling changed the original section")
	}
	// Windows longer than the section's tasks: each window cut at the
	// end, none past it.
	if got := sampleSection(tree.Sec("s", tree.Run(5, tree.Task("t", tree.U(1)))), 20, 4); tasks(got) != 5+4+3+2 {
		t.Errorf("windows of 5 over 5 tasks took %d tasks, want 14", tasks(got))
	}
}

// TestSampleTreeEstimate checks that a prediction on a sampled tree,
// scaled and composed as RunSweep does, gives what the full tree gives
// where the emulator's time is proportional to the work (ideal): serial
// parts, sections' serial times and speedup alike, the small section
// untouched; with a Batcher as without.
func TestSampleTreeEstimate(t *testing.T) {
	big := tree.Sec("big", tree.U(50), tree.Run(150_000, tree.Task("t", tree.U(10))), tree.Run(150_000, tree.Task("t", tree.U(30))))
	small := tree.Sec("small", tree.Run(100, tree.Task("t", tree.U(10))))
	tr := tree.New(tree.U(1000), tree.Run(2, big), tree.U(500), small)
	smp, ok := sampleTree(tr, SampleTasks, SampleWindows)
	if !ok || len(smp.ratio) != 1 || smp.t.Root.Children[3] != small || tasks(smp.t.Root.Children[1]) != SampleTasks {
		t.Fatalf("sampled tree %+v: want the big section sampled to %d tasks and the small one kept", smp, SampleTasks)
	}
	var calls []int
	var gaps []float64
	for _, e := range []SectionEmulator{ideal{}, batching{calls: &calls, gaps: &gaps}} {
		want, err := Predict(e, tr, 4, par.Schedule{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Predict(scaled{e, smp.ratio}, smp.t, 4, par.Schedule{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := smp.estimate(r)
		if !got.Sampled || got.SerialNs != want.SerialNs || got.ParallelNs != want.ParallelNs || got.Speedup != want.Speedup {
			t.Errorf("%T: estimate serial %v parallel %v speedup %v sampled %v; want %v, %v, %v, true", e, got.SerialNs, got.ParallelNs, got.Speedup, got.Sampled, want.SerialNs, want.ParallelNs, want.Speedup)
		}
		for i := range want.Sections {
			if g, w := got.Sections[i], want.Sections[i]; g.SerialNs != w.SerialNs || g.ParallelNs != w.ParallelNs || g.Count != w.Count {
				t.Errorf("%T: section %d %+v, want %+v", e, i, g, w)
			}
		}
	}
	if len(calls) != 2 {
		t.Errorf("the batcher was called %d times, want once for the full tree and once for the sample", len(calls))
	}
	if _, ok := sampleTree(tree.New(small), SampleTasks, SampleWindows); ok {
		t.Error("a tree with no section larger than the sample was sampled")
	}
}

// overSample is ideal, but runs out of its budget on a section of more
// tasks than a sample holds, and always with spawn.
type overSample struct{ ideal }

func (e overSample) Section(sec *tree.Node, threads int, s par.Schedule, burden float64, opt Options) (Section, error) {
	if tasks(sec) > SampleTasks || s.Policy == par.Spawn {
		return Section{}, fmt.Errorf("section %q: %w", sec.Name, ErrOverBudget)
	}
	return e.ideal.Section(sec, threads, s, burden, opt)
}

// TestRunSweepEstimates checks that RunSweep estimates the rows over
// their budget from a sample of the tree's large section: marked
// Sampled, in the order asked, with one note naming them, and the rows
// whose sample runs out too still left out.
func TestRunSweepEstimates(t *testing.T) {
	tr := tree.New(tree.U(1000), tree.Sec("s", tree.Run(300_000, tree.Task("t", tree.U(10)))))
	scheds := []par.Schedule{{Policy: par.Static}, {Policy: par.Spawn}}
	sw, err := RunSweep(tr, []SectionEmulator{overSample{}}, []int{4, 1, 2}, scheds, Options{Budget: NewBudget(1e6, 6)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range sw.Results {
		got = append(got, fmt.Sprintf("%s/%d/%v/%.4g", r.Schedule, r.Threads, r.Sampled, r.Speedup))
	}
	// 1000 serial and 3·10^6 of work: speedups 3.001e6 / (1000 + 3·10^6/t).
	if want := "[static/4/true/3.996 static/1/true/1 static/2/true/1.999]"; fmt.Sprint(got) != want {
		t.Errorf("rows %v, want %v", got, want)
	}
	if len(sw.Notes) != 2 || !strings.HasPrefix(sw.Notes[0], "estimated, over their share of the emulation budget: ideal static at 1, 2 and 4 threads; each section of more than 100,000 tasks") ||
		sw.Notes[1] != "left out, over their share of the emulation budget: ideal spawn at 1, 2 and 4 threads (raise --budget to predict them)" {
		t.Errorf("notes %q", sw.Notes)
	}
	// An emulator that measures the machine is not estimated.
	if est, left, err := estimate(tr, measuring{overSample{}}, []sweepJob{{s: scheds[0], th: 2, err: ErrOverBudget}}, Options{}); err != nil || len(est) != 0 || len(left) != 1 {
		t.Errorf("a measuring emulator's row: %d estimates, %d left out, %v; want 0, 1, nil", len(est), len(left), err)
	}
}

// measuring is an emulator that measures the machine (as syn does).
type measuring struct{ overSample }

func (measuring) Measures() bool { return true }
