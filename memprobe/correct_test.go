package memprobe

import (
	"testing"

	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/tree"
)

// TestCorrect feeds a probe that ran inside the recording and checks
// the recorded runs it scales back, computed by hand.
func TestCorrect(t *testing.T) {
	full := bandit.Counts{Lines: 100, BusyNs: 1e6, WallNs: 1e6}
	raw := Raw{Cores: 2, LineSize: 64,
		Runs: []RunSample{
			{Name: "loop", Index: 0, WallNs: 1000, Blocked: true},
			{Name: "loop", Index: 1, WallNs: 1500, Bandits: 1, Streamed: full},
			{Name: "loop", Index: 2, WallNs: 1000},
			{Name: "m", Index: 0, WallNs: 100},
			{Name: "m", Index: 1, WallNs: 200, Bandits: 1, Streamed: full},
			{Name: "m", Index: 2, WallNs: 100},
		},
		Blocks: []BlockSample{
			{Name: "loop", Block: 0, Tasks: 4, WallNs: 400},
			{Name: "loop", Block: 1, Tasks: 2, WallNs: 300, Bandits: 1, Streamed: full},
			{Name: "loop", Block: 2, Tasks: 3, WallNs: 300},
		}}
	// loop beside one bandit: the block took 300 against 2·100 alone,
	// run 1 took 1500 against run 2's 1000 (run 0 was not alone):
	// pooled, 1800/1200 = 1.5. Run 0 lost 300·(1 − 1/1.5) = 100 of its
	// 1000 to the bandit (scale 0.9), run 1 500 of 1500 (scale 2/3).
	// m's runs 0 and 1 were merged into one node: left as recorded.
	tr := tree.New(
		tree.Sec("loop", tree.Task("t", tree.U(1000))), tree.U(5),
		tree.Sec("loop", tree.Task("t", tree.U(1500))),
		tree.Sec("loop", tree.Task("t", tree.U(1000))),
		tree.Run(2, tree.Sec("m", tree.Task("t", tree.U(150)))),
		tree.Sec("m", tree.Task("t", tree.U(100))),
	)
	if n, ns := Correct(tr, raw); n != 2 || ns != 100+500 {
		t.Errorf("corrected %d runs by %d ns, want 2 by 600", n, ns)
	}
	var got []int64
	for _, c := range tr.Root.Children {
		got = append(got, tree.Work(c)/c.Reps())
	}
	want := []int64{900, 5, 1000, 1000, 150, 100}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("runs after correction %v, want %v", got, want)
		}
	}
	// Starved bandits measured nothing: nothing is corrected.
	raw.Runs[1].Streamed = bandit.Counts{Lines: 1, BusyNs: 1, WallNs: 1e6}
	raw.Blocks[1].Streamed = raw.Runs[1].Streamed
	tr2 := tree.New(tree.Sec("loop", tree.Task("t", tree.U(1000))))
	if n, _ := Correct(tr2, raw); n != 0 || tree.Work(tr2.Root) != 1000 {
		t.Errorf("starved: corrected %d, work %d", n, tree.Work(tr2.Root))
	}
}
