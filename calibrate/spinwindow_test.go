package calibrate

import (
	"runtime"
	"testing"
)

func TestFitSpinWindow(t *testing.T) {
	// lv builds levels from (wait, parked) pairs.
	lv := func(xs ...float64) []SpinLevel {
		var out []SpinLevel
		for i := 0; i+1 < len(xs); i += 2 {
			out = append(out, SpinLevel{WaitNs: xs[i], Parked: xs[i+1]})
		}
		return out
	}
	tests := []struct {
		name       string
		levels     []SpinLevel
		spin, ramp float64
	}{
		{"none", nil, 0, 0},
		{
			// The project's VM: fast up to 2.6 µs, 21% parked at 3.1,
			// 92% at 3.4.
			name:   "sharp",
			levels: lv(100, 0, 2360, 0, 2610, 0, 2870, 0.05, 3130, 0.21, 3370, 0.92, 3610, 1, 3870, 1),
			spin:   2870, ramp: 500,
		},
		{
			// A stray fast hand-off past the window moves nothing.
			name:   "stray fast",
			levels: lv(100, 0, 2000, 0, 2500, 0.6, 3000, 0.95, 3500, 0.4, 4000, 1),
			spin:   2000, ramp: 1000,
		},
		{
			// The half-way level comes after a level with 30% parked:
			// the window starts at the last level with 10% or less.
			name:   "gradual",
			levels: lv(100, 0, 1000, 0.1, 2000, 0.3, 3000, 0.5, 4000, 0.8, 5000, 0.9),
			spin:   1000, ramp: 4000,
		},
		{
			// Never half parked: the window is wider than the sweep.
			name:   "wide",
			levels: lv(100, 0, 4000, 0.2, 8000, 0.4),
			spin:   8000, ramp: 0,
		},
		{
			// Parked from the first level on: no spinning at all.
			name:   "no spin",
			levels: lv(300, 1, 500, 1),
			spin:   300, ramp: 0,
		},
		{
			// Half parked but never 90%: the ramp runs to the sweep's end.
			name:   "never all",
			levels: lv(100, 0, 2000, 0.5, 3000, 0.7),
			spin:   100, ramp: 2900,
		},
	}
	for _, tc := range tests {
		spin, ramp := FitSpinWindow(tc.levels)
		if spin != tc.spin || ramp != tc.ramp {
			t.Errorf("%s: window %v + ramp %v, want %v + %v", tc.name, spin, ramp, tc.spin, tc.ramp)
		}
	}
}

func TestSpinLevel(t *testing.T) {
	l := spinLevel([]int64{3000, 100, 2000, 2500}, []int64{500, 90000, 400, 12000})
	if l.Parked != 0.5 {
		t.Errorf("Parked %v, want 0.5", l.Parked)
	}
	if l.WaitNs != 2250 {
		t.Errorf("WaitNs %v, want the median 2250", l.WaitNs)
	}
}

// TestSpinTrial runs a few real hand-offs: every trial yields a wait of
// at least the hold and a latency, whatever the machine.
func TestSpinTrial(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two cores")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	waits, lats := spinTrial(5000, 4)
	if len(waits) != 4 || len(lats) != 4 {
		t.Fatalf("%d waits and %d latencies, want 4 each", len(waits), len(lats))
	}
	for i := range waits {
		if waits[i] < 5000 || lats[i] < 0 {
			t.Errorf("trial %d: wait %d (want at least the 5000 held), latency %d", i, waits[i], lats[i])
		}
	}
}

// TestFitSpinCheck checks the time between two spin checks taken from a
// sweep's stairs: the last check before the waiters park, over
// machine.SpinChecks; levels with more than 10% parked do not count.
func TestFitSpinCheck(t *testing.T) {
	stairs := func(parkedFrom int) []SpinLevel {
		var ls []SpinLevel
		for i, got := range []float64{790, 791, 801, 1532, 1530, 1540, 2280, 2290, 2285, 3040, 3050, 80000, 85000} {
			l := SpinLevel{WaitNs: float64(250 * i), GotNs: got}
			if i >= parkedFrom {
				l.Parked = 1
			}
			ls = append(ls, l)
		}
		return ls
	}
	tests := []struct {
		name   string
		levels []SpinLevel
		want   float64
	}{
		{"four stairs, then parked", stairs(11), 3050.0 / 4},
		{"parked from the third stair", stairs(6), 1540.0 / 4},
		{"a stray slow level among the parked", append(stairs(11), SpinLevel{GotNs: 90000, Parked: 0.5}), 3050.0 / 4},
		{"nothing but parked", stairs(0), 0},
		{"no levels", nil, 0},
	}
	for _, tc := range tests {
		if got := FitSpinCheck(tc.levels); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
