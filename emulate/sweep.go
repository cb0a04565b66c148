package emulate

import (
	"fmt"
	"sort"

	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// Limited is implemented by emulators that can only predict up to some
// thread count (the synthesizer: the cores of this machine).
type Limited interface {
	MaxThreads() int
}

// Sweep is a grid of predictions: every emulator × schedule × thread count.
type Sweep struct {
	Results []Result
	// Notes say, one sentence each, which rows were left out and why.
	Notes []string
}

// RunSweep predicts t for every emulator, schedule and thread count, in
// that nesting order. Rows an emulator cannot predict (a Limited emulator
// asked for more threads than it can) are skipped with a note. progress,
// if not nil, is called after each prediction with the number done and
// the total.
func RunSweep(t *tree.Tree, emus []SectionEmulator, threads []int, scheds []par.Schedule, opt Options, progress func(done, total int)) (Sweep, error) {
	var sw Sweep
	total := len(emus) * len(threads) * len(scheds)
	done := 0
	for _, e := range emus {
		limit := 0
		if l, ok := e.(Limited); ok {
			limit = l.MaxThreads()
		}
		var skipped []int
		for _, s := range scheds {
			for _, th := range threads {
				if limit > 0 && th > limit {
					if s == scheds[0] {
						skipped = append(skipped, th)
					}
					done++
					continue
				}
				r, err := Predict(e, t, th, s, opt)
				if err != nil {
					return Sweep{}, fmt.Errorf("%s, %s, %d threads: %w", e.Name(), s, th, err)
				}
				sw.Results = append(sw.Results, r)
				done++
				if progress != nil {
					progress(done, total)
				}
			}
		}
		if len(skipped) > 0 {
			sort.Ints(skipped)
			sw.Notes = append(sw.Notes, fmt.Sprintf("%s predicts up to %d threads on this machine; rows for %v threads come from the other emulators only", e.Name(), limit, skipped))
		}
	}
	return sw, nil
}
