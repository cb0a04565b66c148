package ff

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRingTake checks ring's pushes, pops and take against a slice
// doing the same, over random operations that wrap the buffer and take
// from the front, the back and the middle.
func TestRingTake(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		r    ring[int]
		want []int
	)
	for step := 0; step < 20_000; step++ {
		switch op := rng.IntN(5); {
		case op == 0 || len(want) == 0:
			r.pushBack(step)
			want = append(want, step)
		case op == 1:
			r.pushFront(step)
			want = slices.Insert(want, 0, step)
		case op == 2:
			if got := r.popFront(); got != want[0] {
				t.Fatalf("step %d: popFront = %d, want %d", step, got, want[0])
			}
			want = want[1:]
		default:
			i := rng.IntN(len(want))
			if got := r.take(i); got != want[i] {
				t.Fatalf("step %d: take(%d) of %d = %d, want %d", step, i, len(want), got, want[i])
			}
			want = slices.Delete(want, i, i+1)
		}
		if r.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, r.len(), len(want))
		}
	}
	for i, w := range want {
		if got := *r.at(i); got != w {
			t.Fatalf("at(%d) = %d, want %d", i, got, w)
		}
	}
}
