package calibrate

import (
	"context"
	"testing"
	"time"
)

// trials returns n hand-off trials around med: a fifth each at 0.9,
// 0.95, 1, 1.05 and 1.3 times med (median med, 90th percentile 1.3·med
// for n a multiple of 10).
func trials(med float64, n int) []float64 {
	f := []float64{0.9, 0.95, 1, 1.05, 1.3}
	out := make([]float64, n)
	for i := range out {
		out[i] = med * f[i*len(f)/n]
	}
	return out
}

func TestFitHandoff(t *testing.T) {
	waits := []float64{10e3, 20e3, 50e3, 100e3, 150e3, 200e3, 300e3, 1e6, 2e6}
	// sweep builds the trials of waits from each wait's median hand-off
	// and Unlock.
	sweep := func(h, u []float64) (hs, us [][]float64) {
		for i := range waits {
			hs, us = append(hs, trials(h[i], 10)), append(us, trials(u[i], 10))
		}
		return hs, us
	}
	tests := []struct {
		name string
		h, u []float64
		want handoffCosts
	}{
		{
			// A virtual CPU whose guest polls about 150 µs before it
			// halts: 107 µs hand-offs up to 150 µs, 200 µs after.
			name: "doze",
			h:    []float64{107e3, 107e3, 107e3, 107e3, 110e3, 170e3, 190e3, 200e3, 200e3},
			u:    []float64{7e3, 7e3, 7e3, 7e3, 7e3, 32e3, 38e3, 40e3, 40e3},
			want: handoffCosts{handoffNs: 200e3, handoffP90Ns: 260e3, wakeNs: 40e3, dozeNs: 150e3, dozeRampNs: 50e3, dozeHandoffNs: 107e3, dozeWakeNs: 7e3},
		},
		{
			// A first crossing at 100 µs ends the doze there, whatever
			// comes after it.
			name: "first crossing",
			h:    []float64{100e3, 100e3, 100e3, 160e3, 100e3, 200e3, 200e3, 200e3, 200e3},
			u:    []float64{5e3, 5e3, 5e3, 5e3, 5e3, 30e3, 30e3, 30e3, 30e3},
			want: handoffCosts{handoffNs: 200e3, handoffP90Ns: 260e3, wakeNs: 30e3, dozeNs: 50e3, dozeRampNs: 50e3, dozeHandoffNs: 100e3, dozeWakeNs: 5e3},
		},
		{
			// Hand-offs alike at every wait: no doze.
			name: "flat",
			h:    []float64{50e3, 50e3, 50e3, 50e3, 50e3, 50e3, 50e3, 52e3, 52e3},
			u:    []float64{4e3, 4e3, 4e3, 4e3, 4e3, 4e3, 4e3, 4e3, 4e3},
			want: handoffCosts{handoffNs: 52e3, handoffP90Ns: 67.6e3, wakeNs: 4e3},
		},
		{
			// Less than dozeGain apart: the difference is noise.
			name: "too close",
			h:    []float64{170e3, 170e3, 170e3, 180e3, 180e3, 200e3, 200e3, 200e3, 200e3},
			u:    []float64{7e3, 7e3, 7e3, 7e3, 7e3, 7e3, 7e3, 7e3, 7e3},
			want: handoffCosts{handoffNs: 200e3, handoffP90Ns: 260e3, wakeNs: 7e3},
		},
	}
	for _, tc := range tests {
		hs, us := sweep(tc.h, tc.u)
		got := fitHandoff(waits, hs, us, 50e3, 1e6)
		if got != tc.want {
			t.Errorf("%s: fitHandoff = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := fitHandoff(waits[:5], make([][]float64, 5), make([][]float64, 5), 50e3, 1e6); got != (handoffCosts{}) {
		t.Errorf("no asleep trials: fitHandoff = %+v, want none", got)
	}
}

// TestMeasureHandoff runs the real sweep: whatever the machine, the
// asleep hand-off is a positive time with a 90th percentile above it,
// and a doze, where one was found, is shorter and ends inside the sweep.
func TestMeasureHandoff(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for a fifth of a second")
	}
	c, err := measureHandoff(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", c)
	if !(c.handoffNs > 0) || c.handoffP90Ns < c.handoffNs || !(c.wakeNs > 0) {
		t.Errorf("asleep costs %+v: want a positive hand-off, its p90 no less, and a positive Unlock", c)
	}
	if c.dozeHandoffNs > 0 && (!(c.dozeHandoffNs < c.handoffNs) || !(c.dozeRampNs > 0) || c.dozeNs+c.dozeRampNs > float64(2*time.Millisecond)) {
		t.Errorf("doze %+v: want a shorter hand-off and a ramp inside the sweep", c)
	}
}

// TestMeasureHandoffCancel checks that a cancelled context stops the sweep.
func TestMeasureHandoffCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := measureHandoff(ctx); err == nil {
		t.Error("measureHandoff with a cancelled context: no error")
	}
}
