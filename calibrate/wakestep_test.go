package calibrate

import (
	"context"
	"runtime"
	"testing"
)

// TestWakeStep checks the step taken from teams' task starts: the gap
// from the first woken worker to the last, per worker, the median over
// teams, whatever order the starts come in.
func TestWakeStep(t *testing.T) {
	tests := []struct {
		name  string
		teams [][]float64
		want  float64
	}{
		{"none", nil, 0},
		{"two workers: no step to see", [][]float64{{3, 25}}, 0},
		// Caller at 12, first woken at 30, then 6 apart.
		{"one team", [][]float64{{12, 30, 36, 42, 48}}, 6},
		{"unsorted", [][]float64{{48, 36, 12, 42, 30}}, 6},
		// Steps 6, 8 and 100: the median keeps a disturbed team out.
		{"median", [][]float64{{0, 20, 26, 32}, {0, 20, 28, 36}, {0, 20, 120, 220}}, 8},
		// Woken all at once.
		{"at once", [][]float64{{5, 20, 20, 20}}, 0},
	}
	for _, tc := range tests {
		if got := wakeStep(tc.teams); got != tc.want {
			t.Errorf("%s: wakeStep %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMeasureWakeStepSmallMachine checks that a machine of fewer than
// four cores reports no step, and that a larger one reports a finite,
// non-negative one.
func TestMeasureWakeStepSmallMachine(t *testing.T) {
	got, err := measureWakeStep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOMAXPROCS(0) < wakeStepMinK && got != 0 {
		t.Errorf("%d cores: step %v ns, want 0", runtime.GOMAXPROCS(0), got)
	}
	if !(got >= 0) || got > 1e9 {
		t.Errorf("step %v ns", got)
	}
}
