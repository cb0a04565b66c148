// Package robust holds the statistics prophet takes of repeated timings
// on a noisy machine: quantiles and the median, whether a median has
// settled (its distribution-free confidence interval is narrow), and the
// spread. Calibration, the synthesizer, validate and prophet measure all
// take them from here, so that a median means the same everywhere.
package robust

import (
	"math"
	"slices"
)

// SettleWidth is the widest span, relative to their median, of the
// confidence interval of a median for which it has settled: a third of
// the gap between the two modes of the bimodal real runs validate met
// (a lock convoy forming or not, 25-35% apart).
const SettleWidth = 0.10

// Median returns the median of xs (the mean of the two middle values for
// an even count; NaN for none). xs is left as it is.
func Median(xs []float64) float64 { return Quantile(0.5, xs) }

// Quantile returns the p-quantile of xs (p in [0, 1]; NaN for no values)
// by linear interpolation between order statistics (Hyndman and Fan's
// type 7, the default of R and NumPy): the median of an even count is
// the mean of the middle two. xs is left as it is. (gonum's
// stat.Quantile offers only the empirical and a shifted interpolation,
// whose median of 1..4 is 2 and of 1..5 is 2.5.)
func Quantile(p float64, xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return SortedQuantile(p, s)
}

// SortedQuantile is Quantile of xs already sorted in increasing order
// (not empty), without the copy.
func SortedQuantile(p float64, sorted []float64) float64 {
	h := p * float64(len(sorted)-1)
	lo := int(h)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Settled reports whether the median of xs has settled: the order
// statistics (n−1)/2 ± √n/2 (rounded), a distribution-free confidence
// interval of about 68% for the median, span at most SettleWidth of it.
// For five values that is the second to the fourth, so one outlier
// leaves the median settled and two values from one mode and three from
// another do not; for fifteen it is the sixth to the tenth. Fewer than
// three values count as settled.
func Settled(xs []float64) bool {
	n := len(xs)
	if n < 3 {
		return true
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	mid, half := float64(n-1)/2, math.Sqrt(float64(n))/2
	lo := max(int(math.Round(mid-half)), 0)
	hi := min(int(math.Round(mid+half)), n-1)
	return s[hi]-s[lo] <= SettleWidth*Median(s)
}

// Spread returns (max − min) / median of xs, 0 for fewer than two: with
// the few repeats taken, the range says more than an interquartile
// range would.
func Spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / Median(xs)
}

// Ratios returns num[i] / den[i] for the rounds both have: each round's
// speedup, from its serial and parallel times.
func Ratios(num, den []float64) []float64 {
	out := make([]float64, min(len(num), len(den)))
	for i := range out {
		out[i] = num[i] / den[i]
	}
	return out
}
