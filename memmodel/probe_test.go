package memmodel

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// probeTree is a tree of two sections, one probed on a 2-core machine
// whose bandits each get 10,000 MB/s alone and 6,000 two at a time.
func probeTree() *tree.Tree {
	t := tree.New(tree.Sec("mem", tree.Task("t", tree.U(100))), tree.Sec("cpu", tree.Task("t", tree.U(100))))
	t.Meta.Probe = &tree.MemoryProbe{Cores: 2,
		Curve: []tree.ProbeStreams{{Streams: 1, MBs: 10000}, {Streams: 2, MBs: 6000}},
		Sections: map[string]tree.ProbeSection{
			"mem": {Points: []tree.ProbePoint{{Bandits: 1, Load: 1, Runs: 2, Slowdown: 1.4, Share: 0.5}}},
		}}
	return t
}

// TestProbeBurden checks β_t by hand. The section slows down 1.4× beside
// one bandit and takes half a bandit's bandwidth.
//
//	t=2: load 0.5: 1 + 0.4·0.5 = 1.2
//	t=3: load 1: 1.4
//	t=5: load 2, beyond 1 bandit: saturation 12,000 MB/s; g(2) = 10000/6000,
//	     g(3) = 10000/min(6000, 12000/3) = 2.5; 1 + 0.4·1.5/(2/3) = 1.9
func TestProbeBurden(t *testing.T) {
	p := probeTree().Meta.Probe
	tests := []struct {
		threads int
		beta    float64
		extra   bool
		why     string
	}{
		{1, 1, false, "one thread"},
		{2, 1.2, false, ""},
		{3, 1.4, false, ""},
		{5, 1.9, true, ""},
	}
	for _, tc := range tests {
		d := ProbeBurden(p, "mem", tc.threads)
		if math.Abs(d.Beta-tc.beta) > 1e-9 || d.Extrapolated != tc.extra || d.Why != tc.why || d.Share != 0.5 {
			t.Errorf("t=%d: %+v, want β %g extrapolated %v why %q", tc.threads, d, tc.beta, tc.extra, tc.why)
		}
	}
	if d := ProbeBurden(p, "cpu", 2); d.Beta != 1 || d.Why != "section not probed" {
		t.Errorf("unprobed section: %+v", d)
	}
	if d := ProbeBurden(nil, "mem", 2); d.Beta != 1 || d.Why == "" {
		t.Errorf("no probe: %+v", d)
	}
	// A measured speed-up beside bandits (noise) is no burden.
	q := *p
	q.Sections = map[string]tree.ProbeSection{"mem": {Points: []tree.ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: 0.97, Share: 1}}}}
	if d := ProbeBurden(&q, "mem", 2); d.Beta != 1 || d.Why == "" {
		t.Errorf("slowdown below 1: %+v", d)
	}
	// A share above 1 counts as 1: β_2 is the slowdown beside one bandit.
	q.Sections = map[string]tree.ProbeSection{"mem": {Points: []tree.ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1.4, Share: 1.6}}}}
	if d := ProbeBurden(&q, "mem", 2); math.Abs(d.Beta-1.4) > 1e-9 || d.Extrapolated || d.Share != 1 {
		t.Errorf("share 1.6: %+v, want β 1.4 from share 1", d)
	}
	// A point at a quarter of a bandit's load bends the line: at load
	// 0.5, 1.02 + (1.4 − 1.02)·(0.5 − 0.25)/(1 − 0.25) = 1.14667.
	q.Sections = map[string]tree.ProbeSection{"mem": {Points: []tree.ProbePoint{
		{Bandits: 1, Spin: 8, Load: 0.25, Runs: 1, Slowdown: 1.02},
		{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1.4, Share: 0.5}}}}
	if d := ProbeBurden(&q, "mem", 2); math.Abs(d.Beta-(1.02+0.38/3)) > 1e-9 || d.Share != 0.5 {
		t.Errorf("with a low-intensity point: %+v, want β %.5f", d, 1.02+0.38/3)
	}
	// A point counts as at most its successor: beside a full bandit
	// 0.98 after 1.02 at a quarter, every point counts as 1.
	q.Sections = map[string]tree.ProbeSection{"mem": {Points: []tree.ProbePoint{
		{Bandits: 1, Spin: 8, Load: 0.25, Runs: 1, Slowdown: 1.02},
		{Bandits: 1, Load: 1, Runs: 1, Slowdown: 0.98, Share: 0.5}}}}
	if d := ProbeBurden(&q, "mem", 2); d.Beta != 1 || d.Why == "" {
		t.Errorf("a falling point: %+v, want β 1", d)
	}
	// One noisy run (cg.update's 0.25 ms runs on a 2-core VM): 5.38
	// beside a quarter bandit, 1.12 beside a full one, on a curve that
	// hardly bends at two streams (g(2) = 35700/34800 = 1.0259). The
	// quarter point counts as 1.12, so β_2 = 1.12. Beyond, a bandwidth
	// effect explains b = g(2) of the 1.12, the rest r = 1.12/g(2) is
	// carried, and b − 1 = g(2) − 1 grows as the bandits' slowdown does:
	// β_16 = r·g(16), g(16) = 35700/(2·34800/16) = 8.207, so 8.960 (the
	// slowdown of 1.12 divided by g(2) − 1 alone would give 1221).
	flat := tree.MemoryProbe{Cores: 2,
		Curve: []tree.ProbeStreams{{Streams: 1, MBs: 35700}, {Streams: 2, MBs: 34800}},
		Sections: map[string]tree.ProbeSection{"mem": {Points: []tree.ProbePoint{
			{Bandits: 1, Spin: 8, Load: 0.25, Runs: 1, Slowdown: 5.38},
			{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1.12, Share: 1}}}}}
	if d := ProbeBurden(&flat, "mem", 2); math.Abs(d.Beta-1.12) > 1e-9 || d.Extrapolated {
		t.Errorf("a noisy quarter point: %+v, want β_2 1.12", d)
	}
	g2, g16 := 35700.0/34800, 35700.0/(2*34800.0/16)
	if d := ProbeBurden(&flat, "mem", 16); math.Abs(d.Beta-1.12/g2*g16) > 1e-9 || !d.Extrapolated {
		t.Errorf("beyond a flat curve: %+v, want β_16 %.4f", d, 1.12/g2*g16)
	}
	if s := SaturationMBs(p); s != 12000 {
		t.Errorf("SaturationMBs = %g", s)
	}
}

func TestForTreeProbe(t *testing.T) {
	tr := probeTree()
	burden, st := ForTree(tr, machine.Profile{}, Auto)
	if !st.Applied || st.Source != SourceProbe || st.Probed != 1 || st.ProbeCores != 2 || math.Abs(st.MaxBeta-1.2) > 1e-9 {
		t.Errorf("status %+v", st)
	}
	for _, want := range []string{"β from memory probe", "1 of 2 sections probed", "β_2 up to 1.20", "beyond 2 threads β is extrapolated", "12.0 GB/s"} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("reason %q lacks %q", st.Reason, want)
		}
	}
	secs := TopSections(tr)
	if b := burden(secs[0], 2); math.Abs(b-1.2) > 1e-9 {
		t.Errorf("burden(mem, 2) = %g", b)
	}
	if b := burden(secs[1], 2); b != 1 {
		t.Errorf("burden(cpu, 2) = %g", b)
	}
	if _, st := ForTree(tr, machine.Profile{}, Off); st.Applied {
		t.Errorf("off: %+v", st)
	}

	// Betas: t=4 is beyond the probe's 2 cores: load 1.5,
	// g(2.5) = 10000/4800; 1 + 0.4·(10000/4800 − 1)/(2/3) = 1.65.
	got := Betas(tr, machine.Profile{}, Auto, []int{1, 2, 4})
	if len(got) != 2 || got[0].Name != "mem" || got[0].Source != SourceProbe || got[1].Source != "" {
		t.Fatalf("Betas = %+v", got)
	}
	want := []float64{1, 1.2, 1.65}
	for i := range want {
		if math.Abs(got[0].Beta[i]-want[i]) > 1e-9 {
			t.Errorf("β_%d = %g, want %g", got[0].Threads[i], got[0].Beta[i], want[i])
		}
	}
	if !reflect.DeepEqual(got[0].Extrapolated, []bool{false, false, true}) || got[1].Extrapolated != nil {
		t.Errorf("extrapolated %v, %v", got[0].Extrapolated, got[1].Extrapolated)
	}

	// The whole program: mem (β_2 1.2) and cpu (1) have equal work.
	if b, src := WorkBeta(tr, machine.Profile{}, 2); math.Abs(b-1.1) > 1e-9 || src != SourceProbe {
		t.Errorf("WorkBeta = %g, %q; want 1.1 from the probe", b, src)
	}

	// Off with the reason, where the probe measured nothing.
	tr.Meta.Probe = &tree.MemoryProbe{Cores: 1, Note: "no memory probe: 1 usable core leaves no core for the bandits"}
	if _, st := ForTree(tr, machine.Profile{}, Auto); st.Applied || !strings.Contains(st.Reason, "1 usable core") {
		t.Errorf("unprobed: %+v", st)
	}
	tr.Meta.Probe = nil
	if _, st := ForTree(tr, machine.Profile{}, Auto); st.Applied || !strings.Contains(st.Reason, "--memory-probe on") {
		t.Errorf("no probe: %+v", st)
	}
	if b, src := WorkBeta(tr, machine.Profile{}, 2); b != 1 || src != "" {
		t.Errorf("WorkBeta without a model = %g, %q", b, src)
	}
}

// TestForTreeBoth: where a section has counters and a probe, counters win
// and the status says where they disagree.
func TestForTreeBoth(t *testing.T) {
	tr := probeTree()
	secs := TopSections(tr)
	secs[0].Counters = &tree.Counters{Instructions: 1e9, Cycles: 2e9, LLCMisses: 5e7, TimeNs: 1e9, Runs: 1}
	p := machine.Profile{Memory: ptr(PaperMachine()), LineSize: 64}
	burden, st := ForTree(tr, p, Auto)
	if st.Source != SourceCounters+" and "+SourceProbe {
		t.Fatalf("source %q", st.Source)
	}
	want := Compute(*secs[0].Counters, PaperMachine(), 64, 2).Beta
	if b := burden(secs[0], 2); b != want {
		t.Errorf("burden %g, want the counters' %g", b, want)
	}
	// The counters give β_2 1.05 (the paper's fits at 3,200 MB/s).
	if len(st.Disagree) != 1 || !strings.Contains(st.Reason, "disagree on mem: β_2 1.05 from counters, 1.20 from the probe") {
		t.Errorf("counters β_2 %.2f against the probe's 1.20: status %+v", want, st)
	}
}

func ptr[T any](v T) *T { return &v }
