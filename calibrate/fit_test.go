package calibrate

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
)

func approx(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }

var xs = []float64{1000, 2000, 4000, 8000, 16000, 32000}

func gen(f func(float64) float64) []float64 {
	y := make([]float64, len(xs))
	for i, x := range xs {
		y[i] = f(x)
	}
	return y
}

func TestFits(t *testing.T) {
	tests := []struct {
		name string
		fit  func(x, y []float64) (machine.Fit, error)
		y    []float64
		want machine.Fit
	}{
		{"linear", FitLinear, gen(func(x float64) float64 { return 1.35*x + 1758 }), machine.Fit{Form: "linear", A: 1.35, B: 1758, R2: 1}},
		{"log", FitLog, gen(func(x float64) float64 { return 5756*math.Log(x) - 38805 }), machine.Fit{Form: "log", A: 5756, B: -38805, R2: 1}},
		{"power", FitPower, gen(func(x float64) float64 { return 101481 * math.Pow(x, -0.964) }), machine.Fit{Form: "power", A: 101481, B: -0.964, R2: 1}},
		{"best picks linear", FitBest, gen(func(x float64) float64 { return 2*x - 5 }), machine.Fit{Form: "linear", A: 2, B: -5, R2: 1}},
		{"best picks log", FitBest, gen(func(x float64) float64 { return 6314*math.Log(x) - 39621 }), machine.Fit{Form: "log", A: 6314, B: -39621, R2: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.fit(xs, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if f.Form != tc.want.Form || !approx(f.A, tc.want.A) || !approx(f.B, tc.want.B) || !approx(f.R2, 1) {
				t.Errorf("got %+v, want %+v", f, tc.want)
			}
			if f.MinX != 1000 || f.MaxX != 32000 {
				t.Errorf("range [%g, %g], want [1000, 32000]", f.MinX, f.MaxX)
			}
			// The fit reproduces the points through memmodel.Eval.
			for i, x := range xs {
				if v, err := memmodel.Eval(f, x); err != nil || !approx(v, tc.y[i]) {
					t.Errorf("Eval at %g = %g, %v; want %g", x, v, err, tc.y[i])
				}
			}
		})
	}
}

func TestFitNoisyR2(t *testing.T) {
	y := gen(func(x float64) float64 { return x })
	y[2] += 3000 // one point off the line
	f, err := FitLinear(xs, y)
	if err != nil {
		t.Fatal(err)
	}
	if !(f.R2 > 0.9 && f.R2 < 1) {
		t.Errorf("R² = %g, want in (0.9, 1)", f.R2)
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name string
		fit  func(x, y []float64) (machine.Fit, error)
		x, y []float64
	}{
		{"one point", FitLinear, []float64{1}, []float64{2}},
		{"same x", FitLinear, []float64{3, 3}, []float64{1, 2}},
		{"lengths", FitLinear, []float64{1, 2}, []float64{1}},
		{"NaN", FitLinear, []float64{1, math.NaN()}, []float64{1, 2}},
		{"log of 0", FitLog, []float64{0, 1}, []float64{1, 2}},
		{"power of negative y", FitPower, []float64{1, 2}, []float64{1, -2}},
	}
	for _, tc := range tests {
		if f, err := tc.fit(tc.x, tc.y); err == nil {
			t.Errorf("%s: got %+v, want an error", tc.name, f)
		}
	}
	// Constant ys: a fit with R² 0, not NaN (JSON cannot hold NaN).
	f, err := FitLinear([]float64{1, 2, 3}, []float64{5, 5, 5})
	if err != nil || f.R2 != 0 || f.A != 0 || f.B != 5 {
		t.Errorf("constant: %+v, %v", f, err)
	}
}

// TestFitMemory feeds samples made from the paper's Ψ_2 and Φ and checks
// the fits recover them.
func TestFitMemory(t *testing.T) {
	paper := memmodel.PaperMachine()
	var samples []Sample
	for spin, d := range []float64{2000, 4000, 8000, 16000} {
		total2 := 1.35*d + 1758
		samples = append(samples,
			Sample{Threads: 1, Spin: spin, TotalMBs: d, PerThreadMBs: d, StallCycles: 101481 * math.Pow(d, -0.964)},
			Sample{Threads: 2, Spin: spin, TotalMBs: total2, PerThreadMBs: total2 / 2, StallCycles: 101481 * math.Pow(total2/2, -0.964)},
		)
	}
	m, err := FitMemory(samples, 2.93)
	if err != nil {
		t.Fatal(err)
	}
	psi, want := m.Psi[2], paper.Psi[2]
	if psi.Form != "linear" || !approx(psi.A, want.A) || !approx(psi.B, want.B) || !approx(psi.R2, 1) {
		t.Errorf("Ψ_2 = %+v, want %+v", psi, want)
	}
	if m.Phi.Form != "power" || !approx(m.Phi.A, 101481) || !approx(m.Phi.B, -0.964) {
		t.Errorf("Φ = %+v", m.Phi)
	}
	if m.MinTrafficMBs != 2000 || m.FreqGHz != 2.93 || len(m.Psi) != 1 {
		t.Errorf("memory = %+v", m)
	}
	if _, err := FitMemory(samples[:1], 1); err == nil {
		t.Error("one sample: want an error")
	}
}

func TestReadSystem(t *testing.T) {
	s := ReadSystem()
	if s.Cores < 1 || s.LineSize < 1 || s.LLCBytes < 1 || !(s.FreqGHz > 0) || s.CPU == "" {
		t.Errorf("ReadSystem() = %+v", s)
	}
}

// TestMeasureMemorySmoke runs the real benchmark briefly: small buffers,
// three levels, a fraction of a second. It checks the shape of the
// result, never a speed.
func TestMeasureMemorySmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the memory benchmark")
	}
	var calls int
	m, samples, err := MeasureMemory(context.Background(), MemoryOptions{
		Threads: []int{2}, Spins: []int{0, 8, 64}, Duration: 300 * time.Millisecond,
		BufferBytes: 4 << 20, Progress: func(done, total int) { calls++ },
	})
	if len(samples) != 6 || calls != 6 {
		t.Fatalf("%d samples, %d progress calls; want 6", len(samples), calls)
	}
	for _, s := range samples {
		if !(s.TotalMBs > 0) || !(s.NsPerLine > 0) || !(s.ComputeNsPerLine > 0) {
			t.Errorf("sample %+v", s)
		}
	}
	// Φ needs positive stall costs, which a cache-resident smoke buffer
	// may not give; Ψ must be there whenever the fit succeeded.
	if err == nil && (m == nil || len(m.Psi) != 1) {
		t.Errorf("memory %+v", m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := MeasureMemory(ctx, MemoryOptions{Threads: []int{2}, Spins: []int{0}, Duration: time.Second, BufferBytes: 1 << 20}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestRunHooks(t *testing.T) {
	var buf bytes.Buffer
	want := machine.Overheads{ForkNs: 1, JoinNs: 2}
	res, err := Run(context.Background(), Options{
		SkipMemory: true,
		Overheads: func(ctx context.Context, p func(done, total int)) (machine.Overheads, error) {
			p(1, 2)
			p(2, 2)
			return want, nil
		},
		Walk:     func(context.Context) (machine.Walk, error) { return machine.Walk{NodeNs: 7, CallNs: 9}, nil },
		Tool:     "test",
		Progress: &buf,
		Now:      func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if p.Overheads != want || p.Walk.NodeNs != 7 || p.Tool != "test" || p.Date != "2025-01-02T03:04:05Z" || p.Memory != nil || p.Version != machine.FormatVersion {
		t.Errorf("profile %+v", p)
	}
	if !strings.Contains(buf.String(), "calibrate overheads") || strings.Contains(buf.String(), "\r") {
		t.Errorf("progress output %q", buf.String())
	}
	sum := Result{Profile: p, Samples: []Sample{{CPUShare: 0.5}}}
	sum.Profile.Memory = &machine.Memory{
		Psi: map[int]machine.Fit{2: {Form: "log", A: 5756, B: -38805, R2: 0.95, MinX: 2000, MaxX: 9000}},
		Phi: machine.Fit{Form: "power", A: 101481, B: -0.964, R2: 0.5},
	}
	text := sum.Summary()
	for _, want := range []string{"Ψ_2: total traffic = 5756·ln(δ) -3.88e+04   R² 0.950", "Φ:   stall cycles per access = 1.015e+05·δ^t^-0.964   R² 0.500",
		"weak fits (R² < 0.9): Φ\n", "ran 50% of the time", "fork 1 ns", "7 ns per node"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	// The wake step is named only where it was measured.
	if strings.Contains(text, "one core every") != (p.Overheads.WakeStepNs > 0) {
		t.Errorf("wake step %v: summary %q", p.Overheads.WakeStepNs, text)
	}
	sum.Profile.Overheads.WakeStepNs = 5800
	if text := sum.Summary(); !strings.Contains(text, "wake p50 ") || !strings.Contains(text, "(then one core every 5800 ns)") {
		t.Errorf("wake step 5800 ns: summary %q", text)
	}
	_, err = Run(context.Background(), Options{SkipMemory: true, SkipOverheads: true,
		Walk: func(context.Context) (machine.Walk, error) { return machine.Walk{}, errors.New("boom") }})
	if err == nil || !strings.Contains(err.Error(), "walk") {
		t.Errorf("failing hook: %v", err)
	}
}
