package syn

import (
	"math/rand/v2"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// Walk measurement parameters: leaf length, tasks per tree, repeats.
const (
	walkLeafNs  = 200
	walkTasks   = 5000
	walkRepeats = 31
)

// MeasureWalk measures the synthesizer's tree-walking costs on this
// machine (the paper's OVERHEAD_ACCESS_NODE and OVERHEAD_RECURSIVE_CALL)
// and a spin delay's own cost (SpinNs, measureSpin): it replays, at one
// thread, a section of tasks of three short U leaves and a section whose
// every task enters a nested section, and attributes the time beyond the
// leaves' lengths to the nodes visited and the nested calls made, the
// spin delays being shortened by their own cost first. Each tree is
// replayed several times and the median replay is used. It takes about
// a quarter of a second.
//
// These are the costs of a tree of that shape. The Emulator measures
// each section's own on the section itself (sectionWalk) unless told
// to use fixed ones (Options.FixedWalk).
func MeasureWalk() machine.Walk {
	flat := tree.Sec("walk-flat",
		tree.Run(walkTasks, tree.Task("t", tree.U(walkLeafNs), tree.U(walkLeafNs), tree.U(walkLeafNs))))
	nested := tree.Sec("walk-nested",
		tree.Run(walkTasks/2, tree.Task("t",
			tree.U(walkLeafNs),
			tree.Sec("inner", tree.Task("i", tree.U(walkLeafNs))))))

	fp, err1 := compile(flat, 1)
	np, err2 := compile(nested, 1)
	if err1 != nil || err2 != nil {
		return machine.Walk{} // cannot happen: the trees above are well formed
	}
	// Replay the two trees alternately so that a disturbance of the
	// machine hits both alike; use each one's median replay, the same
	// statistic the Emulator uses by default (the fastest replay would
	// under-estimate the cost a typical replay pays). The spins are
	// shortened by their own cost, as in every replay, so what is left
	// beyond the work is the walk.
	spinNs := measureSpin()
	scale := spin.WorkScale()
	fTimes := make([]float64, 0, walkRepeats)
	nTimes := make([]float64, 0, walkRepeats)
	for k := range walkRepeats + 1 {
		f, n := timeReplay(fp, spinNs, scale), timeReplay(np, spinNs, scale)
		if k > 0 { // the first round warms up
			fTimes, nTimes = append(fTimes, f), append(nTimes, n)
		}
	}
	fBest, nBest := robust.Median(fTimes), robust.Median(nTimes)
	fNodes, _, _ := counts(fp)
	nNodes, nCalls, _ := counts(np)
	nodeNs := (fBest - float64(fp.work)) / fNodes
	callNs := (nBest - float64(np.work) - nNodes*nodeNs) / nCalls
	return machine.Walk{NodeNs: max(nodeNs, 0), CallNs: max(callNs, 0), SpinNs: spinNs, Clock: spin.Clock()}
}

// Spin measurement parameters: rounds (the median counts, after one that
// warms up), spin delays per round, and the longest request timed.
const (
	spinRounds  = 5
	spinSamples = 4000
	spinMaxNs   = 200
)

// measureSpin returns the wall time of a spin delay beyond its request,
// the mean over requests of 1 to spinMaxNs nanoseconds (the critical
// sections whose length the spin's fixed cost distorts most), less the
// clock read that times it: the median of spinRounds rounds.
func measureSpin() float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	rounds := make([]float64, 0, spinRounds)
	for k := range spinRounds + 1 {
		var over, reads float64
		for range spinSamples {
			x := 1 + rng.Int64N(spinMaxNs)
			a := clock.Now()
			b := clock.Now()
			spin.For(x)
			c := clock.Now()
			reads += float64(b - a)
			over += float64(c-b) - float64(x)
		}
		if k > 0 {
			rounds = append(rounds, (over-reads)/spinSamples)
		}
	}
	return max(robust.Median(rounds), 0)
}

// Per-section walk measurement: the work of a section's first tasks
// replayed (sectionWalkNs), how many times (the median counts, after one
// that warms up), and how much work is replayed once only (a section
// whose first task alone is that long: one replay of it is its own
// warm-up, and its walk is a small share of it).
const (
	sectionWalkNs      = 5_000_000
	sectionWalkRepeats = 3
	sectionWalkOnceNs  = 4 * sectionWalkNs
	// sectionWalkMinVisits is the fewest node visits and calls a
	// section's first tasks must make for their time per visit to
	// stand for the section's: fewer, and a replay's noise spread over
	// them is larger than any walk.
	sectionWalkMinVisits = 64
	// sectionWalkMaxNs bounds a section's walking cost per visit, far
	// above any measured (a few tens of nanoseconds).
	sectionWalkMaxNs = 1000
)

// sectionWalk measures the walking cost of sp's own nodes: it replays
// the section's first tasks (up to sectionWalkNs of work) at one thread,
// with the spins shortened by base.SpinNs as in every replay, and
// returns base with NodeNs and CallNs set to the time beyond their work,
// and beyond callNs for each task (par's call of the loop body, which
// the program pays too and the replays keep), per node visited and
// nested call made, the median of
// sectionWalkRepeats replays (one where the first task alone is longer
// than sectionWalkOnceNs). The cost may be negative (down to −SpinNs),
// where the section's spins overshoot less than SpinNs on average. A
// section whose first tasks visit fewer than sectionWalkMinVisits nodes
// keeps base's costs.
//
// A fixed cost per node, measured on one tree shape (MeasureWalk), does
// not fit every section: a spin delay overshoots its request by an
// amount that depends on the request's length against the clock's step,
// and many distinct tasks reach the plan's memory more often than a run
// of identical ones.
func sectionWalk(sp *secPlan, base machine.Walk, callNs, workScale float64) machine.Walk {
	p := sp.prefix(sectionWalkNs)
	nodes, calls, tasks := counts(p)
	if nodes+calls < sectionWalkMinVisits {
		return base
	}
	spinNs := base.SpinNs
	times := make([]float64, 0, sectionWalkRepeats)
	for k := range sectionWalkRepeats + 1 {
		d := timeReplay(p, spinNs, workScale)
		if p.work > sectionWalkOnceNs {
			times = append(times, d)
			break
		}
		if k > 0 {
			times = append(times, d)
		}
	}
	c := min(max((robust.Median(times)-float64(p.work)-tasks*callNs)/(nodes+calls), -spinNs), sectionWalkMaxNs)
	return machine.Walk{NodeNs: c, CallNs: c, SpinNs: spinNs}
}

// timeReplay replays plan once at one thread, with spin delays
// shortened by spinNs, computed leaves scaled by workScale (see costs)
// and no walk accounted, and returns its wall time less the drift it
// ended with (acct.u): the work and the walk.
func timeReplay(plan *secPlan, spinNs, workScale float64) float64 {
	r := &replayer{sched: par.Schedule{Policy: par.Static}, threads: 1, walk: costs{machine.Walk{SpinNs: spinNs}, workScale}}
	var a acct
	start := clock.Now()
	r.sec(plan, &a)
	return float64(clock.Now()-start) - a.walk
}
