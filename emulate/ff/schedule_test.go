package ff

import (
	"testing"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// lastFirst is a toy schedule, written here the way a new schedule is
// added to the engine: a worker pool that pops its tasks one at a time
// from the end of the loop (a slice used as a stack), at no cost.
type lastFirst struct{ worksharing }

func (lastFirst) assign(*secInfo, int, int) (cursor, int64, int64) { return cursor{}, 0, 0 }

func (lastFirst) next(s *state, g *gor, f *frame) took {
	tm, info := f.team, f.info
	if tm.k > 1 && !s.at(g) {
		return tookWait
	}
	if tm.next < info.n {
		f.cur = info.seek(info.n - 1 - tm.next)
		f.left = 1
		tm.next++
	}
	return tookChunk
}

func TestScheduleToy(t *testing.T) {
	// The triangular loop (8, 7, ..., 1 ms) popped from its end on two
	// cores: w0 takes 1 (→1), w1 2 (→2); w0 3 at 1 (→4), w1 4 at 2
	// (→6), w0 5 at 4 (→9), w1 6 at 6 (→12), w0 7 at 9 (→16), w1 8 at
	// 12 (→20): 20 ms, where dynamic:1 (in loop order) gives 18.
	// A run of 1000 identical tasks checks the shortcuts that hold for
	// any schedule: 500 each, 250 ms.
	tests := []struct {
		name string
		sec  func() *prog
		want float64
	}{
		{"triangular", func() *prog { return mustCompile(t, triangular()) }, 20e6},
		{"identical", func() *prog { return mustCompile(t, tree.Sec("same", tree.Run(1000, tree.Task("t", tree.U(500e3))))) }, 250e6},
	}
	for _, tc := range tests {
		r, err := emulateOnce(nil, tc.sec(), 2, lastFirst{}, 1, machine.Overheads{}, 0, nil, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}
