package main

import (
	"errors"
	"fmt"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/tree"
)

// defaultBudget is how many emulation steps (an event of ff's, or a tree
// node it walks past) a command's predictions may take in all unless
// --budget says otherwise: about half a minute of one core at the 60 to
// 100 million steps a second ff takes. A profile of a few hundred bytes
// can stand for 10^12 tasks through shared subtrees; without a budget,
// emulating it would take hours.
const defaultBudget = 2e9

// checkBudget fails, before any emulation, when predictions of t, each
// emulator of emus making predictionsEach of them, are sure to take more
// steps than the plan's budget: ff takes at least one step for every
// nested section instance (a fork), and the synthesizer replays every
// node of the tree with its runs written out. What the predictions
// really take is counted as they go, against the budget that
// plan.options hands them: how many steps a run of tasks takes depends
// on whether the emulator can take it in closed form, which only the
// emulation finds out.
func (pl *plan) checkBudget(t *tree.Tree, emus []emulate.SectionEmulator, predictionsEach int) error {
	if pl.budget <= 0 {
		return nil
	}
	if least := leastSteps(t, emus, predictionsEach); least > pl.budget {
		return fmt.Errorf("the profile's %d prediction(s) would take at least %.3g emulation steps, over the budget of %.3g (about half a minute of one core): predict fewer thread counts, schedules or emulators, or raise --budget (0: no limit)",
			predictionsEach*len(emus), least, pl.budget)
	}
	return nil
}

// leastSteps returns the fewest steps predictionsEach predictions of t
// by each emulator of emus can take (see checkBudget).
func leastSteps(t *tree.Tree, emus []emulate.SectionEmulator, predictionsEach int) float64 {
	forks, nodes := nestedSections(t), float64(t.Totals().ExpandedNodes)
	var least float64
	for _, e := range emus {
		per := forks
		if emulate.Measures(e) {
			per = nodes
		}
		least += per * float64(predictionsEach)
	}
	return least
}

// nestedSections returns how many section instances one run of each of
// t's top-level sections holds below it, runs written out: the sections
// nested in its tasks, which an emulation of it forks one by one. A
// top-level section run many times is emulated once (emulate.Predict
// multiplies), so its own Count does not count.
func nestedSections(t *tree.Tree) float64 {
	memo := map[*tree.Node]float64{}
	var below func(n *tree.Node) float64
	below = func(n *tree.Node) float64 {
		if v, ok := memo[n]; ok {
			return v
		}
		var v float64
		for _, c := range n.Children {
			one := below(c)
			if c.Kind == tree.KindSec {
				one++
			}
			v += one * float64(c.Reps())
		}
		memo[n] = v
		return v
	}
	var total float64
	for _, c := range t.Root.Children {
		if c.Kind == tree.KindSec {
			total += below(c)
		}
	}
	return total
}

// overBudget adds what to do to an error of a prediction that went
// over its budget (emulate.ErrOverBudget) or was too large to emulate
// (emulate.ErrTooLarge) outside a sweep, which leaves such rows out
// itself: the timeline's, and whatif --sweep's prediction of today's
// program. Other errors pass as they are.
func overBudget(err error) error {
	switch {
	case errors.Is(err, emulate.ErrOverBudget):
		return fmt.Errorf("%w (about half a minute of one core): predict fewer thread counts or another schedule (spawn and errgroup take the most, a step or more per task), or raise --budget (0: no limit)", err)
	case errors.Is(err, emulate.ErrTooLarge):
		return fmt.Errorf("%w: predict another schedule (a goroutine per task keeps one for every task waiting at a lock, and a worksharing schedule one per thread)", err)
	}
	return err
}
