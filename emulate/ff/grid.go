package ff

import (
	"math"
)

// gridScale is the number of grid steps per nanosecond: times that are
// multiples of 1/gridScale ns and below maxExact add up exactly in
// float64 (their multiples of the step are integers below 2^53).
const gridScale = 1 << 12

// maxExact bounds the times batch works with (about 36 minutes).
const maxExact = 1 << (52 - 12)

// onGrid returns x rounded to the grid (the nearest multiple of
// 1/gridScale ns).
func onGrid(x float64) float64 { return math.Round(x*gridScale) / gridScale }

// isInt reports whether x is on the grid (a multiple of 1/gridScale ns)
// and in [0, maxExact), where batch's closed forms are exact.
func isInt(x float64) bool {
	if !(x >= 0 && x < maxExact) {
		return false
	}
	y := x * gridScale
	return y == math.Trunc(y)
}
