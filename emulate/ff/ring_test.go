package ff

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRingTake checks ring's pushes, pops and take against a slice
// doing the same, over random operations that wrap the buffer, grow the
// queue to hundreds of entries and shrink it again in turn, and take
// from the front, the back and the middle.
func TestRingTake(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		r    ring[int]
		want []int
	)
	longest := 0
	for step := 0; step < 20_000; step++ {
		// Phases of 2,000 steps that push three times in five, then
		// once in five.
		pushes := 3
		if step/2000%2 == 1 {
			pushes = 1
		}
		switch op := rng.IntN(5); {
		case op < pushes && op%2 == 0 || len(want) == 0:
			r.pushBack(step)
			want = append(want, step)
		case op < pushes:
			r.pushFront(step)
			want = slices.Insert(want, 0, step)
		case op == pushes:
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
		longest = max(longest, len(want))
	}
	if longest < 200 {
		t.Fatalf("the queue grew to %d entries at most, want hundreds", longest)
	}
	for i, w := range want {
		if got := *r.at(i); got != w {
			t.Fatalf("at(%d) = %d, want %d", i, got, w)
		}
	}
}
