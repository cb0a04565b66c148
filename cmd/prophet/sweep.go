package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
)

// sweepFaster are the sweep's speed-ups, as the share of a region's time
// saved.
var sweepFaster = []float64{0.10, 0.25, 0.50}

// sweep predicts, for every region of a, the program's speedup over
// today's serial run at the plan's largest thread count with its first schedule and emulator if
// the region were 10, 25 or 50% faster or its own serial computation
// split as many ways as there are threads, and ranks the regions by the
// best of these.
func sweep(t *tree.Tree, a *analyze.Analysis, pl *plan) (report.Sweep, error) {
	th := pl.threads[len(pl.threads)-1]
	s := pl.schedules[0]
	emu := pl.emulators[0]
	split := max(2, th)
	sw := report.Sweep{Emulator: emu.Name(), Schedule: s.String(), Threads: th}
	var changes []func(region string) analyze.Change
	for _, p := range sweepFaster {
		factor := 1 / (1 - p)
		sw.Changes = append(sw.Changes, fmt.Sprintf("%.0f%% faster", 100*p))
		changes = append(changes, func(r string) analyze.Change { return analyze.Change{Region: r, Faster: factor} })
	}
	sw.Changes = append(sw.Changes, fmt.Sprintf("split %d ways", split))
	changes = append(changes, func(r string) analyze.Change { return analyze.Change{Region: r, Parallelize: split} })

	// Each prediction has an equal share of the budget, so that a
	// change that makes the tree too costly to emulate (a split of
	// every task under spawn) is left out without starving the rest.
	n := 1 + len(a.Regions)*len(changes)
	emus := []emulate.SectionEmulator{emu}
	if err := pl.checkBudget(t, emus, n); err != nil {
		return sw, err
	}
	share := pl.budget / float64(n)
	// Speedups over today's serial program, as coz asks: how much
	// faster would the program run, not how well the changed program
	// would scale.
	serial := float64(tree.Work(t.Root))
	predict := func(tr *tree.Tree) (float64, error) {
		res, err := emulate.Predict(emu, tr, th, s, pl.options(share, 0))
		if err != nil || !(res.ParallelNs > 0) {
			return 0, err
		}
		return serial / res.ParallelNs, nil
	}
	var err error
	if sw.Base, err = predict(t); err != nil {
		return sw, overBudget(err)
	}
	for _, r := range a.Regions {
		row := report.SweepRow{Region: r.Name, Best: math.Inf(-1)}
		for _, ch := range changes {
			v := math.NaN()
			// A change that makes the tree too costly or too large to
			// emulate is left out, as one that does not apply is.
			if nt, err := analyze.WhatIf(t, ch(r.Name)); err == nil && (share <= 0 || leastSteps(nt, emus, 1) <= share) {
				switch v, err = predict(nt); {
				case emulate.LeftOut(err):
					v = math.NaN()
				case err != nil:
					return sw, fmt.Errorf("%s: %w", ch(r.Name), err)
				default:
					row.Best = max(row.Best, v)
				}
			}
			row.Speedups = append(row.Speedups, v)
		}
		if math.IsInf(row.Best, -1) {
			row.Best = sw.Base
		}
		sw.Rows = append(sw.Rows, row)
	}
	slices.SortStableFunc(sw.Rows, func(x, y report.SweepRow) int {
		switch {
		case x.Best > y.Best:
			return -1
		case x.Best < y.Best:
			return 1
		}
		return 0
	})
	return sw, nil
}
