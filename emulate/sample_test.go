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
// untouched; with a Batcher as without. It also checks the sample's
// size: SampleWorkNs of work a thread where that is more than
// SampleTasks tasks, and no sample where that is more than half the
// section.
func TestSampleTreeEstimate(t *testing.T) {
	// 1.2·10^6 tasks of 20 ns on average: 250,000 tasks hold 5 ms.
	big := tree.Sec("big", tree.U(50), tree.Run(600_000, tree.Task("t", tree.U(10))), tree.Run(600_000, tree.Task("t", tree.U(30))))
	small := tree.Sec("small", tree.Run(100, tree.Task("t", tree.U(10))))
	tr := tree.New(tree.U(1000), tree.Run(2, big), tree.U(500), small)
	smp, ok := sampleTree(tr, 1)
	if !ok || len(smp.ratio) != 1 || smp.t.Root.Children[3] != small || tasks(smp.t.Root.Children[1]) != 250_000 {
		t.Fatalf("sampled tree %+v: want the big section sampled to 250,000 tasks and the small one kept", smp)
	}
	if m, ok := sampleSize(big, 24e6, 2); !ok || m != 500_000 {
		t.Errorf("sample at 2 threads: %d tasks, %v; want 500,000, true", m, ok)
	}
	if _, ok := sampleTree(tr, 3); ok {
		t.Error("a sample of more than half the section's tasks (750,000 of 1.2·10^6) was taken")
	}
	var calls []int
	var gaps []float64
	for _, e := range []SectionEmulator{ideal{}, batching{calls: &calls, gaps: &gaps}} {
		want, err := Predict(e, tr, 1, par.Schedule{}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Predict(scaled{e, smp.ratio}, smp.t, 1, par.Schedule{}, Options{})
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
	if _, ok := sampleTree(tree.New(small), 1); ok {
		t.Error("a tree with no section larger than the sample was sampled")
	}
}

// overSample is ideal, but runs out of its budget on a section of more
// than 3·10^6 tasks, and always with spawn.
type overSample struct{ ideal }

func (e overSample) Section(sec *tree.Node, threads int, s par.Schedule, burden float64, opt Options) (Section, error) {
	if tasks(sec) > 3_000_000 || s.Policy == par.Spawn {
		return Section{}, fmt.Errorf("section %q: %w", sec.Name, ErrOverBudget)
	}
	return e.ideal.Section(sec, threads, s, burden, opt)
}

// TestRunSweepEstimates checks that RunSweep estimates the rows over
// their budget from a sample of the tree's large section: marked
// Sampled, in the order asked, with one note naming them, and the rows
// whose sample runs out too still left out.
func TestRunSweepEstimates(t *testing.T) {
	tr := tree.New(tree.U(1000), tree.Sec("s", tree.Run(4_000_000, tree.Task("t", tree.U(10)))))
	scheds := []par.Schedule{{Policy: par.Static}, {Policy: par.Spawn}}
	sw, err := RunSweep(tr, []SectionEmulator{overSample{}}, []int{4, 1, 2}, scheds, Options{Budget: NewBudget(1e6, 6)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, r := range sw.Results {
		got = append(got, fmt.Sprintf("%s/%d/%v/%.6f", r.Schedule, r.Threads, r.Sampled, r.Speedup))
	}
	for _, th := range []int{4, 1, 2} {
		// 1000 serial and 4·10^7 of work.
		want = append(want, fmt.Sprintf("static/%d/true/%.6f", th, (1000+4e7)/(1000+4e7/float64(th))))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if len(sw.Notes) != 2 || !strings.HasPrefix(sw.Notes[0], "estimated, over their share of the emulation budget: ideal static at 1, 2 and 4 threads; each large section emulated on 16 windows of its tasks spread through it, at least 100,000 tasks and 5 ms of work a thread") ||
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
