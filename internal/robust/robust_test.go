package robust

import (
	"math"
	"slices"
	"testing"
)

func TestMedianAndSpread(t *testing.T) {
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is a number")
	}
	xs := []float64{3, 1, 2}
	if Median(xs) != 2 || !slices.Equal(xs, []float64{3, 1, 2}) {
		t.Errorf("Median = %v, xs %v: want 2 and xs untouched", Median(xs), xs)
	}
	if Median([]float64{4, 1, 3, 2}) != 2.5 {
		t.Error("even count: want the mean of the middle two")
	}
	if Spread([]float64{1}) != 0 || Spread([]float64{1, 2, 3}) != 1 {
		t.Errorf("Spread: %v, %v; want 0, 1", Spread([]float64{1}), Spread([]float64{1, 2, 3}))
	}
}

func TestSettled(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want bool
	}{
		{"too few to tell", []float64{1, 2}, true},
		{"tight", []float64{1.40, 1.41, 1.39, 1.42, 1.38}, true},
		{"one outlier of five", []float64{1.40, 1.41, 1.39, 1.85, 1.38}, true},
		{"two modes, two and three", []float64{1.40, 1.85, 1.39, 1.86, 1.38}, false},
		{"two modes, three and two", []float64{1.40, 1.85, 1.84, 1.86, 1.38}, false},
		{"three values, one off", []float64{1.40, 1.41, 1.85}, false},
		{"a quarter of fifteen in the other mode", []float64{1.40, 1.41, 1.39, 1.42, 1.38, 1.40, 1.41, 1.39, 1.42, 1.38, 1.40, 1.85, 1.84, 1.86, 1.83}, true},
		{"two fifths of fifteen in the other mode", []float64{1.40, 1.41, 1.39, 1.42, 1.38, 1.40, 1.41, 1.39, 1.42, 1.85, 1.84, 1.86, 1.83, 1.85, 1.84}, false},
		{"width just within", []float64{0.951, 1, 1.05}, true},
		{"width just past", []float64{0.95, 1, 1.0501}, false},
	}
	for _, tc := range tests {
		xs := slices.Clone(tc.xs)
		if got := Settled(tc.xs); got != tc.want {
			t.Errorf("%s: Settled(%v) = %v, want %v", tc.name, tc.xs, got, tc.want)
		}
		if !slices.Equal(xs, tc.xs) {
			t.Errorf("%s: Settled changed its input", tc.name)
		}
	}
}

func TestRatios(t *testing.T) {
	if got := Ratios([]float64{4, 9, 1}, []float64{2, 3}); !slices.Equal(got, []float64{2, 3}) {
		t.Errorf("Ratios = %v, want [2 3] (the rounds both have)", got)
	}
}

func TestQuantile(t *testing.T) {
	tests := []struct {
		p    float64
		xs   []float64
		want float64
	}{
		{0.5, []float64{3, 1, 2}, 2},
		{0.5, []float64{4, 1, 3, 2}, 2.5},
		{0.9, []float64{10, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 9.1},
		{0, []float64{5, 3}, 3},
		{1, []float64{5, 3}, 5},
		{0.25, []float64{7}, 7},
	}
	for _, tc := range tests {
		in := slices.Clone(tc.xs)
		if got := Quantile(tc.p, tc.xs); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.p, tc.xs, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("Quantile(%v, ...) reordered its input", tc.p)
		}
	}
	if got := Quantile(0.5, nil); !math.IsNaN(got) {
		t.Errorf("Quantile of nothing = %v, want NaN", got)
	}
}
