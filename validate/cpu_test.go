package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

func TestPredictedCPU(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  emulate.Result
		want float64
	}{
		{"no sections", emulate.Result{SerialNs: 100, ParallelNs: 100}, 0},
		{"no serial time", emulate.Result{Sections: []emulate.Section{{ParallelNs: 50, BusyNs: 100}}}, 0},
		{"a section without busy time", emulate.Result{SerialNs: 300, ParallelNs: 200, Sections: []emulate.Section{
			{ParallelNs: 100, BusyNs: 200}, {ParallelNs: 50}}}, 0},
		// 100 ns of serial code and a section of 200 ns on two threads
		// that kept them busy 360 ns: (100 + 360) / 400.
		{"serial code and a section", emulate.Result{SerialNs: 400, ParallelNs: 300, Sections: []emulate.Section{
			{ParallelNs: 200, BusyNs: 360}}}, 460.0 / 400},
	} {
		if got := predictedCPU(tc.res); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %g, want %g", tc.name, got, tc.want)
		}
	}
}

// TestPredictedCPUOfFF checks predictedCPU on ff's predictions of trees
// whose busy time is known (no overheads): four tasks of 100 ns after
// 100 ns of serial code keep two threads busy 400 ns in a 200-ns
// section, one thread running the serial code before it (ratio 1,
// speedup 500/300); two tasks that hold one lock for 100 ns each run one
// after the other, the second parked meanwhile (ratio 1, speedup 1).
func TestPredictedCPUOfFF(t *testing.T) {
	free := tree.New(tree.U(100), tree.Sec("s", tree.Task("t", tree.U(100)), tree.Task("t", tree.U(100)), tree.Task("t", tree.U(100)), tree.Task("t", tree.U(100))))
	locked := tree.New(tree.Sec("s", tree.Task("t", tree.L(1, 100)), tree.Task("t", tree.L(1, 100))))
	for _, tc := range []struct {
		name         string
		tr           *tree.Tree
		speedup, cpu float64
	}{
		{"lock-free", free, 500.0 / 300, 1},
		{"one lock", locked, 1, 1},
	} {
		res, err := emulate.Predict(ff.New(), tc.tr, 2, par.Schedule{Policy: par.Static}, emulate.Options{Overheads: machine.Overheads{}})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Speedup-tc.speedup) > 1e-9 || math.Abs(predictedCPU(res)-tc.cpu) > 1e-9 {
			t.Errorf("%s: speedup %g and CPU inflation %g, want %g and %g", tc.name, res.Speedup, predictedCPU(res), tc.speedup, tc.cpu)
		}
	}
}

func TestSlowerNote(t *testing.T) {
	md := subject{test: Examples, sample: "md"}
	fine := subject{test: Fine, sample: "5"}
	st := par.Schedule{Policy: par.Static}
	for _, tc := range []struct {
		name                  string
		sub                   subject
		pred, real, infl, cpu float64
		short                 bool
		want                  []string
	}{
		{"md's slow runs", md, 1.975, 1.447, 1.164, 1.001, false,
			[]string{"md, static on 2 threads", "took 1.16 times", "ff's threads 1.00 times", "ff's 1.98 is 36% above the real 1.45", "slower side by side"}},
		{"a generated sample", fine, 1.8, 1.5, 1.3, 1.05, false, []string{"fine sample 5, static"}},
		{"a short lock", md, 1.975, 1.447, 1.164, 1.001, true, nil},
		{"CPU times close", md, 1.975, 1.447, 1.09, 1.0, false, nil},
		{"prediction close", md, 1.58, 1.447, 1.164, 1.001, false, nil},
		{"prediction low", md, 1.2, 1.447, 1.164, 1.001, false, nil},
		{"no predicted CPU time", md, 1.975, 1.447, 1.164, 0, false, nil},
	} {
		got := slowerNote(tc.sub, "ff", st, 2, tc.pred, tc.real, tc.infl, tc.cpu, tc.short)
		if (got == "") != (tc.want == nil) {
			t.Errorf("%s: note %q, want one: %v", tc.name, got, tc.want != nil)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: note lacks %q: %s", tc.name, w, got)
			}
		}
	}
}
