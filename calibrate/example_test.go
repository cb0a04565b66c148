package calibrate_test

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/calibrate"
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
