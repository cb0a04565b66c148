package analyze

import (
	"slices"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// TestShortLocks checks which locks ShortLocks names: held for less than
// one spin check on average and for at least ShortLockShare of the work.
func TestShortLocks(t *testing.T) {
	loop := func(n int, task ...*tree.Node) *tree.Tree {
		return tree.New(tree.Sec("loop", tree.Run(int64(n), tree.Task("t", task...))))
	}
	tests := []struct {
		name string
		t    *tree.Tree
		ov   machine.Overheads
		want []int
	}{
		// Default's checks: every 760 ns.
		{"short and large", loop(1000, tree.U(100), tree.L(1, 100), tree.U(100)), machine.Overheads{}, []int{1}},
		{"short but small", loop(1000, tree.U(200), tree.L(1, 60), tree.U(200)), machine.Overheads{}, nil},
		{"large but long", loop(1000, tree.U(100), tree.L(1, 1000), tree.U(100)), machine.Overheads{}, nil},
		// A machine that checks every 200 ns: 300 ns holds are long.
		{"long for this machine", loop(1000, tree.U(100), tree.L(1, 300), tree.U(100)), machine.Overheads{LockSpinNs: 800}, nil},
		{"two locks, one short", loop(1000, tree.U(10), tree.L(1, 300), tree.L(2, 900), tree.U(10)), machine.Overheads{}, []int{1}},
		{"two short, the longer held first", loop(1000, tree.U(100), tree.L(1, 100), tree.L(2, 200), tree.U(100)), machine.Overheads{}, []int{2, 1}},
		{"no lock", loop(1000, tree.U(100)), machine.Overheads{}, nil},
	}
	for _, tc := range tests {
		a, err := Analyze(tc.t, Options{Overheads: tc.ov, Threads: []int{2}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []int
		for _, l := range a.ShortLocks {
			got = append(got, l.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: ShortLocks = %v, want %v", tc.name, got, tc.want)
		}
	}
}
