package calibrate

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/parallel-prophet/prophet/machine"
)

// errFewPoints is returned when a fit has fewer than two usable points.
var errFewPoints = errors.New("fewer than two distinct points")

// FitLinear fits y = A·x + B by least squares (gonum/stat) and stores R²
// and the x range.
func FitLinear(x, y []float64) (machine.Fit, error) {
	return fitLine("linear", x, y, x, y)
}

// FitLog fits y = A·ln x + B; points with x ≤ 0 are an error.
func FitLog(x, y []float64) (machine.Fit, error) {
	lx := make([]float64, len(x))
	for i, v := range x {
		if !(v > 0) {
			return machine.Fit{}, fmt.Errorf("log fit: x = %g is not positive", v)
		}
		lx[i] = math.Log(v)
	}
	return fitLine("log", x, y, lx, y)
}

// FitPower fits y = A·x^B by a straight line through (ln x, ln y); R² is
// that of the log-log regression. Points with x ≤ 0 or y ≤ 0 are an
// error.
func FitPower(x, y []float64) (machine.Fit, error) {
	lx := make([]float64, len(x))
	ly := make([]float64, len(y))
	for i := range x {
		if !(x[i] > 0) || i >= len(y) || !(y[i] > 0) {
			return machine.Fit{}, fmt.Errorf("power fit: point (%g, %g) is not positive", x[i], y[min(i, len(y)-1)])
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
	}
	f, err := fitLine("power", x, y, lx, ly)
	if err != nil {
		return f, err
	}
	f.A, f.B = math.Exp(f.B), f.A // ln y = slope·ln x + intercept
	return f, nil
}

// FitBest fits the linear and the logarithmic form and returns the one
// with the higher R² (the linear one on a tie), as section V-D does for
// Ψ_t.
func FitBest(x, y []float64) (machine.Fit, error) {
	lin, err := FitLinear(x, y)
	if err != nil {
		return lin, err
	}
	lg, err := FitLog(x, y)
	if err != nil || lg.R2 <= lin.R2 {
		return lin, nil
	}
	return lg, nil
}

// fitLine regresses fy on fx (already transformed) and returns a Fit with
// A = slope, B = intercept; x holds the untransformed xs for the range.
func fitLine(form string, x, y, fx, fy []float64) (machine.Fit, error) {
	if len(x) != len(y) {
		return machine.Fit{}, fmt.Errorf("%s fit: %d xs and %d ys", form, len(x), len(y))
	}
	f := machine.Fit{Form: form, MinX: math.Inf(1), MaxX: math.Inf(-1)}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return machine.Fit{}, fmt.Errorf("%s fit: point (%g, %g) is not finite", form, v, y[i])
		}
		f.MinX, f.MaxX = min(f.MinX, v), max(f.MaxX, v)
	}
	if len(x) < 2 || f.MinX == f.MaxX {
		return machine.Fit{}, fmt.Errorf("%s fit: %w", form, errFewPoints)
	}
	intercept, slope := stat.LinearRegression(fx, fy, nil, false)
	f.A, f.B = slope, intercept
	f.R2 = stat.RSquared(fx, fy, nil, intercept, slope)
	if math.IsNaN(f.R2) || math.IsInf(f.R2, 0) {
		f.R2 = 0 // all ys equal: nothing explained (and JSON has no NaN)
	}
	return f, nil
}
