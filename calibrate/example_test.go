package calibrate_test

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/machine"
)

// Fitting Ψ_4 to points on the paper's logarithmic curve recovers it.
func ExampleFitBest() {
	x := []float64{2000, 4000, 8000, 16000}
	y := make([]float64, len(x))
	for i, d := range x {
		y[i] = 5756*math.Log(d) - 38805
	}
	f, _ := calibrate.FitBest(x, y)
	fmt.Printf("%s: %.0f·ln δ %+.0f, R² %.2f\n", f.Form, f.A, f.B, f.R2)
	// Output: log: 5756·ln δ -38805, R² 1.00
}

// MedianOverheads takes each overhead's median over several
// measurements, so that one taken in a disturbed moment does not decide.
func ExampleMedianOverheads() {
	runs := []machine.Overheads{
		{LockHandoffNs: 101e3, WakeP50Ns: 15e3, WakeP90Ns: 21e3},
		{LockHandoffNs: 120e3, WakeP50Ns: 18e3, WakeP90Ns: 40e3}, // disturbed
		{LockHandoffNs: 104e3, WakeP50Ns: 16e3, WakeP90Ns: 25e3},
	}
	ov := calibrate.MedianOverheads(runs)
	fmt.Printf("hand-off %.0f µs, wake-up p50 %.0f µs, p90 %.0f µs\n", ov.LockHandoffNs/1e3, ov.WakeP50Ns/1e3, ov.WakeP90Ns/1e3)
	// Output: hand-off 104 µs, wake-up p50 16 µs, p90 25 µs
}

// A spinning waiter checks the lock at fixed steps from its request: the
// times at which it took the lock climb in stairs as the holder keeps it
// longer, until it parks. FitSpinWindow finds where it parks and
// FitSpinCheck the step.
func ExampleFitSpinCheck() {
	var levels []calibrate.SpinLevel
	for i, got := range []float64{790, 795, 1530, 1535, 2280, 2290, 3040, 3045, 80000, 85000} {
		l := calibrate.SpinLevel{WaitNs: float64(375 * i), GotNs: got}
		if got > 10000 {
			l.Parked = 1
		}
		levels = append(levels, l)
	}
	spin, _ := calibrate.FitSpinWindow(levels)
	fmt.Printf("spins %.0f ns, checks every %.0f ns\n", spin, calibrate.FitSpinCheck(levels))
	// Output: spins 2625 ns, checks every 761 ns
}
