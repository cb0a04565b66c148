package ff

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
)

// TestSeekFrom checks that seekFrom finds the same cursor as seek for
// every task from every hint: at, before and past the task, out of
// range, and farther than seekWalk runs away.
func TestSeekFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, nruns := range []int{1, 2, 5, seekWalk, seekWalk + 1, 3*seekWalk + 2, 200} {
		info := &secInfo{}
		for range nruns {
			c := int64(1 + rng.IntN(4))
			if rng.IntN(5) == 0 {
				c += int64(rng.IntN(50))
			}
			info.runs = append(info.runs, taskRun{start: info.n, count: c})
			info.n += c
		}
		hints := []cursor{{run: -1}, {run: len(info.runs)}, {run: len(info.runs) + 7}}
		for r := range info.runs {
			hints = append(hints, cursor{run: r})
		}
		for i := range info.n {
			want := info.seek(i)
			if r := want.run; info.runs[r].start > i || i >= info.runs[r].start+info.runs[r].count || want.off != i-info.runs[r].start {
				t.Fatalf("%d runs: seek(%d) = %+v, not task %d", nruns, i, want, i)
			}
			for _, h := range hints {
				if got := info.seekFrom(h, i); got != want {
					t.Fatalf("%d runs: seekFrom(%+v, %d) = %+v, want %+v", nruns, h, i, got, want)
				}
			}
		}
	}
	dense := &secInfo{dense: true, n: 10}
	if got := dense.seekFrom(cursor{run: 7}, 3); got != (cursor{run: 3}) {
		t.Errorf("dense seekFrom(7, 3) = %+v, want {3 0}", got)
	}
}

// TestProgInfoShared checks that a prog builds a section's info once and
// hands every caller, concurrent ones too, the same one, equal to a
// fresh build, and that a state's emulations of the prog use it.
func TestProgInfoShared(t *testing.T) {
	sec := mixedTree(2000)
	p := mustCompile(t, sec)
	root := p.root()
	if root.dense() {
		t.Fatal("test section is dense: it has no info to share")
	}
	const callers = 8
	got := make([]*secInfo, callers)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = p.info(root) })
	}
	wg.Wait()
	for i, in := range got {
		if in != got[0] {
			t.Fatalf("caller %d got another info", i)
		}
	}
	want := buildInfo(p, root, nil)
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("shared info differs from a fresh build")
	}
	var s state
	if _, err := emulateOnce(&s, p, 4, rule(t, "dynamic:1"), 1, machine.Overheads{}, 0, nil, 0, 0); err != nil {
		t.Fatal(err)
	}
	if s.infos[root] != got[0] {
		t.Errorf("the emulation built its own info")
	}
}
