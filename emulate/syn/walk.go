package syn

import (
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
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
// machine (the paper's OVERHEAD_ACCESS_NODE and OVERHEAD_RECURSIVE_CALL):
// it replays, at one thread, a section of tasks of three short U leaves
// and a section whose every task enters a nested section, and attributes
// the time beyond the leaves' lengths to the nodes visited and the nested
// calls made. NodeNs therefore includes the spin delay's own entry and
// exit cost, which a real computation does not have. Each tree is
// replayed several times and the median replay is used. It takes about
// a quarter of a second.
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
	// under-estimate the cost a typical replay pays).
	fTimes := make([]float64, 0, walkRepeats)
	nTimes := make([]float64, 0, walkRepeats)
	for k := range walkRepeats + 1 {
		f, n := timeReplay(fp), timeReplay(np)
		if k > 0 { // the first round warms up
			fTimes, nTimes = append(fTimes, f), append(nTimes, n)
		}
	}
	fBest, nBest := robust.Median(fTimes), robust.Median(nTimes)
	fNodes, _ := counts(fp)
	nNodes, nCalls := counts(np)
	nodeNs := (fBest - float64(fp.work)) / fNodes
	callNs := (nBest - float64(np.work) - nNodes*nodeNs) / nCalls
	return machine.Walk{NodeNs: max(nodeNs, 0), CallNs: max(callNs, 0)}
}

// timeReplay replays plan once at one thread and returns its wall time.
func timeReplay(plan *secPlan) float64 {
	r := &replayer{sched: par.Schedule{Policy: par.Static}, threads: 1}
	var a acct
	start := clock.Now()
	r.sec(plan, &a)
	return float64(clock.Now() - start)
}
