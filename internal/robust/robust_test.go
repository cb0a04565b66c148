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
