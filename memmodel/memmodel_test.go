package memmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

func near(got, want float64) bool {
	if want == 0 {
		return math.Abs(got) < 1e-12
	}
	return math.Abs(got-want) <= 1e-9*math.Abs(want)
}

// paperCounters: N = 10^9 instructions, D = 2·10^7 misses (MPI 0.02),
// T = 2.93·10^8 cycles in 0.1 s, so δ = 2·10^7·64 B / 0.1 s = 12800 MB/s.
var paperCounters = tree.Counters{Instructions: 1e9, Cycles: 2.93e8, LLCMisses: 2e7, TimeNs: 1e8, Runs: 1}

// TestPaperMachine checks every step against values computed by hand
// (python3, double precision) from equations (1), (3), (6) and (7):
// ω = 101481·12800^−0.964 = 11.143826128596231,
// CPI$ = (2.93e8 − ω·2e7)/1e9 = 0.07012347742807537,
// δ^2 = (1.35·12800 + 1758)/2 = 9519, δ^4 = (5756·ln 12800 − 38805)/4, ...
func TestPaperMachine(t *testing.T) {
	m := PaperMachine()
	const omega, cpi = 11.143826128596231, 0.07012347742807537
	tests := []struct {
		threads              int
		deltaT, omegaT, beta float64
	}{
		{2, 9519.0, 14.82595573298573, 1.2513399047364842},
		{3, 5778.10763161146, 23.98962135921705, 1.8768460908273592},   // between Ψ_2 and Ψ_4
		{4, 3907.661447417191, 34.9765377498151, 2.6268062540081134},   //
		{6, 2839.1023461209843, 47.59027422476824, 3.4878121567352904}, // between Ψ_4 and Ψ_8
		{8, 2304.822795472881, 58.183809010450105, 4.210920333232346},
		{12, 1674.313636726439, 79.17827739961442, 5.643989847851071},
		{16, 1674.313636726439, 79.17827739961442, 5.643989847851071}, // above 12: β_12
	}
	for _, tc := range tests {
		d := Compute(paperCounters, m, 64, tc.threads)
		if d.Why != "" {
			t.Errorf("t=%d: why %q, want the model applied", tc.threads, d.Why)
		}
		checks := []struct {
			name      string
			got, want float64
		}{
			{"MPI", d.MPI, 0.02}, {"δ", d.Delta, 12800}, {"ω", d.Omega, omega}, {"CPI$", d.CPICache, cpi},
			{"δ^t", d.DeltaT, tc.deltaT}, {"ω^t", d.OmegaT, tc.omegaT}, {"β", d.Beta, tc.beta},
		}
		for _, c := range checks {
			if !near(c.got, c.want) {
				t.Errorf("t=%d: %s = %.15g, want %.15g", tc.threads, c.name, c.got, c.want)
			}
		}
	}
}

// synthetic: Ψ_2(δ) = δ (two threads share one thread's bandwidth), Φ(x) =
// 10^6/x. Counters: N = 10^6, D = 10^4, T = 2·10^6, 10^5 ns: δ = 6400 MB/s,
// ω = 156.25, CPI$ = (2e6 − 1.5625e6)/1e6 = 0.4375, MPI·ω = 1.5625;
// δ^2 = 3200, ω^2 = 312.5, β_2 = (0.4375 + 3.125)/(0.4375 + 1.5625) = 1.78125.
func synthetic() machine.Memory {
	return machine.Memory{
		Psi:           map[int]machine.Fit{2: {Form: "linear", A: 1, B: 0, R2: 1, MinX: 1000}},
		Phi:           machine.Fit{Form: "power", A: 1e6, B: -1, R2: 1, MinX: 1000},
		FreqGHz:       20, // 2e6 cycles in 1e5 ns
		MinTrafficMBs: 1000,
	}
}

var synthCounters = tree.Counters{Instructions: 1e6, Cycles: 2e6, LLCMisses: 1e4, TimeNs: 1e5}

func TestBurden(t *testing.T) {
	superlinear := synthetic()
	superlinear.Psi = map[int]machine.Fit{2: {Form: "linear", A: 4, B: 0}}
	perfect := synthetic()
	perfect.Psi = map[int]machine.Fit{2: {Form: "linear", A: 2, B: 0}}
	narrow := synthetic()
	narrow.Psi = map[int]machine.Fit{2: {Form: "linear", A: 1, MinX: 7000}}
	noFreq := synthetic()
	noFreq.FreqGHz = 0
	noPsi := synthetic()
	noPsi.Psi = nil
	badPhi := synthetic()
	badPhi.Phi.Form = "cubic"

	noCycles := synthCounters
	noCycles.Cycles = 0 // T = 1e5 ns · 20 GHz = 2e6: same β
	noTime := synthCounters
	noTime.TimeNs = 0 // time = 2e6 / 20 GHz = 1e5 ns: same β
	lowMPI := synthCounters
	lowMPI.LLCMisses = 999 // MPI 0.000999
	lowTraffic := synthCounters
	lowTraffic.TimeNs = 1e6 // δ = 640 MB/s < 1000
	lowTraffic.Cycles = 2e7
	memBound := synthCounters
	memBound.Cycles = 1e6 // ω·D = 1.5625e6 > T: CPI$ = 0, β = ω^2/ω = 2
	noInstr := synthCounters
	noInstr.Instructions = 0

	tests := []struct {
		name    string
		c       tree.Counters
		m       machine.Memory
		threads int
		beta    float64
		why     string // substring; "" means applied
	}{
		{"hand computation", synthCounters, synthetic(), 2, 1.78125, ""},
		{"cycles from time", noCycles, synthetic(), 2, 1.78125, ""},
		{"time from cycles", noTime, synthetic(), 2, 1.78125, ""},
		{"above calibrated", synthCounters, synthetic(), 8, 1.78125, ""},
		{"all memory", memBound, synthetic(), 2, 2, ""},
		{"perfect scaling", synthCounters, perfect, 2, 1, ""},
		{"one thread", synthCounters, synthetic(), 1, 1, "one thread"},
		{"MPI threshold", lowMPI, synthetic(), 2, 1, "MPI"},
		{"traffic threshold", lowTraffic, synthetic(), 2, 1, "below the calibrated range"},
		{"below Ψ range", synthCounters, narrow, 2, 1, "range of Ψ_2"},
		{"never below 1", synthCounters, superlinear, 2, 1, "no extra contention"},
		{"no cycles, no freq", noCycles, noFreq, 2, 1, "no cycle count"},
		{"no instructions", noInstr, synthetic(), 2, 1, "no instruction count"},
		{"no Ψ", synthCounters, noPsi, 2, 1, "no Ψ fits"},
		{"bad Φ", synthCounters, badPhi, 2, 1, "unknown fit form"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			beta, why := Burden(tc.c, tc.m, 64, tc.threads)
			if !near(beta, tc.beta) {
				t.Errorf("β = %.15g, want %.15g (why %q)", beta, tc.beta, why)
			}
			if tc.why == "" && why != "" || tc.why != "" && !strings.Contains(why, tc.why) {
				t.Errorf("why = %q, want %q", why, tc.why)
			}
			if beta < 1 {
				t.Errorf("β = %g below 1", beta)
			}
		})
	}
}

func TestEval(t *testing.T) {
	tests := []struct {
		f       machine.Fit
		x, want float64
		err     bool
	}{
		{machine.Fit{Form: "linear", A: 2, B: 3}, 5, 13, false},
		{machine.Fit{Form: "log", A: 2, B: 3}, math.E * math.E, 7, false},
		{machine.Fit{Form: "power", A: 3, B: 2}, 4, 48, false},
		{machine.Fit{Form: "log", A: 2, B: 3}, 0, 0, true},
		{machine.Fit{Form: "power", A: 2, B: 3}, -1, 0, true},
		{machine.Fit{Form: ""}, 1, 0, true},
	}
	for _, tc := range tests {
		got, err := Eval(tc.f, tc.x)
		if (err != nil) != tc.err || !tc.err && !near(got, tc.want) {
			t.Errorf("Eval(%+v, %g) = %g, %v; want %g, error %v", tc.f, tc.x, got, err, tc.want, tc.err)
		}
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		err  bool
	}{{"auto", Auto, false}, {"ON", On, false}, {" off", Off, false}, {"yes", Auto, true}, {"", Auto, true}}
	for _, tc := range tests {
		got, err := ParseMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseMode(%q) = %v, %v", tc.in, got, err)
		}
		if err == nil && got.String() != strings.ToLower(strings.TrimSpace(tc.in)) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

func TestForTree(t *testing.T) {
	c := synthCounters
	withCounters := func() *tree.Tree {
		s := tree.Sec("sweep", tree.Task("t", tree.U(100)))
		s.Counters = &c
		return tree.New(tree.U(5), s, tree.Sec("plain", tree.Task("t", tree.U(1))))
	}
	noCounters := tree.New(tree.Sec("a", tree.Task("t", tree.U(1))))
	noCounters.Meta.CountersNote = "hardware counters unavailable: perf_event_open: no such file"
	mem := synthetic()
	withMem := machine.Default()
	withMem.Memory = &mem
	weak := synthetic()
	weak.Phi.R2 = 0.3
	withWeak := machine.Default()
	withWeak.Memory = &weak

	tests := []struct {
		name    string
		tr      *tree.Tree
		p       machine.Profile
		mode    Mode
		applied bool
		errs    bool
		reason  string
		beta2   float64 // β of the first top-level section at 2 threads
	}{
		{"applied", withCounters(), withMem, Auto, true, false, "memory model on (β from hardware counters): 1 of 2 sections with counters, β_2 up to 1.78", 1.78125},
		{"on", withCounters(), withMem, On, true, false, "memory model on", 1.78125},
		{"weak fits", withCounters(), withWeak, Auto, true, false, "β_2 up to 1.78 (weak fits: Φ R² 0.30)", 1.78125},
		{"off", withCounters(), withMem, Off, false, false, "memory model off: turned off", 1},
		{"no counters", noCounters, withMem, Auto, false, false, "memory model off: the profile has no hardware counters (hardware counters unavailable: perf_event_open", 1},
		{"no counters, on", noCounters, withMem, On, false, true, "no hardware counters", 1},
		{"no machine", withCounters(), machine.Default(), Auto, false, false, "memory model off: no machine profile with memory fits (run prophet calibrate)", 1},
		{"no sections", tree.New(tree.U(4)), withMem, Auto, false, false, "no parallel sections", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			burden, st := ForTree(tc.tr, tc.p, tc.mode)
			if st.Applied != tc.applied || !strings.Contains(st.String(), tc.reason) {
				t.Errorf("status %+v, want applied %v, reason %q", st, tc.applied, tc.reason)
			}
			if (st.Err() != nil) != tc.errs {
				t.Errorf("Err() = %v, want error %v", st.Err(), tc.errs)
			}
			secs := TopSections(tc.tr)
			if len(secs) == 0 {
				return
			}
			if got := burden(secs[0], 2); !near(got, tc.beta2) {
				t.Errorf("β_2 = %g, want %g", got, tc.beta2)
			}
			if got := burden(secs[0], 1); got != 1 {
				t.Errorf("β_1 = %g, want 1", got)
			}
			if len(secs) > 1 {
				if got := burden(secs[1], 2); got != 1 {
					t.Errorf("section without counters: β_2 = %g, want 1", got)
				}
			}
		})
	}
}

func TestForTreeComputeInflation(t *testing.T) {
	tr := tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(10)))))
	p := machine.Default()
	p.ComputeInflation = map[int]float64{1: 1, 2: 1.5, 4: 1.25}
	sec := tr.Root.Children[0]
	burden, st := ForTree(tr, p, Auto)
	if st.Applied || !st.Burdened() || st.Inflation != 1.5 || st.InflationThreads != 2 {
		t.Errorf("status %+v: want the memory model off, inflation κ_2 = 1.5 on", st)
	}
	if !strings.Contains(st.Reason, "memory model off") || !strings.Contains(st.Reason, "κ_2 = 1.50") {
		t.Errorf("reason %q", st.Reason)
	}
	for _, tc := range []struct {
		threads int
		want    float64
	}{{1, 1}, {2, 1.5}, {3, 1.5}, {4, 1.25}, {64, 1.25}} {
		if got := burden(sec, tc.threads); got != tc.want {
			t.Errorf("burden at %d threads = %v, want %v", tc.threads, got, tc.want)
		}
	}
	if _, st := ForTree(tr, p, Off); st.Burdened() {
		t.Errorf("--memory off still applies inflation: %+v", st)
	}
	p.ComputeInflation = map[int]float64{1: 1, 2: 1}
	if _, st := ForTree(tr, p, Auto); st.Burdened() {
		t.Errorf("κ = 1 counted as a burden: %+v", st)
	}
}
