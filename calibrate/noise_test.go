package calibrate

import (
	"slices"
	"testing"
)

// TestPrivateHiccups checks, on hiccups given by hand (µs, as clock ns
// ×1000), which parts of a core's hiccups another core ran through.
func TestPrivateHiccups(t *testing.T) {
	us := func(from, to int64) hiccup { return hiccup{from * 1000, to * 1000} }
	tests := []struct {
		name  string
		per   [][]hiccup
		parts []float64
		pairs int
	}{
		{
			// One core: every hiccup whole, no pair.
			name:  "one core",
			per:   [][]hiccup{{us(0, 30), us(100, 105)}},
			parts: []float64{30e3, 5e3},
		},
		{
			// Both cores stopped together (a VM's pause) for 0-30:
			// nothing private. Core 0 stops alone 100-140 (40), core
			// 1 for 200-210 (10); core 0's 300-340 is covered 310-335
			// by core 1's, leaving 15; core 1's 310-335 lies inside
			// core 0's. A leftover of 1 µs (core 1's 0-31 against core
			// 0's 0-30) is under noiseGapNs.
			name: "two cores",
			per: [][]hiccup{
				{us(0, 30), us(100, 140), us(300, 340)},
				{us(0, 31), us(200, 210), us(310, 335)},
			},
			parts: []float64{40e3, 15e3, 10e3},
			pairs: 2,
		},
		{
			// A hiccup covered by two of the other core's in turn,
			// 30 of its 50; those two lie inside it.
			name: "covered twice",
			per: [][]hiccup{
				{us(0, 50)},
				{us(5, 20), us(30, 45)},
			},
			parts: []float64{20e3},
			pairs: 2,
		},
	}
	for _, tc := range tests {
		parts, pairs := privateHiccups(tc.per)
		slices.Sort(parts)
		want := slices.Sorted(slices.Values(tc.parts))
		if !slices.Equal(parts, want) || pairs != tc.pairs {
			t.Errorf("%s: parts %v in %d pairs, want %v in %d", tc.name, parts, pairs, want, tc.pairs)
		}
	}
}
