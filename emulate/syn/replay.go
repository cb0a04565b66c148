package syn

import (
	"math"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
)

// acct is what one worker accounts during a replay. Workers of a team
// write only their own acct; the padding keeps two workers' accts off the
// same cache line.
type acct struct {
	// walk is the tree-walking cost, in ns, that this worker has run up
	// (node visits and nested calls, its own and, for each nested team
	// it entered, that team's residue) and no spin delay has absorbed
	// yet: see u.
	walk float64
	// busy is the work replayed, in ns, by this worker and every
	// goroutine of the nested teams it entered: the time spent in spin
	// delays plus the walking cost they absorbed.
	busy int64
	// strandDone and setupDone are set once the worker has run its
	// section's own per-worker setup and its tasks' (tree.Node.Setup).
	strandDone, setupDone bool
	_                     [46]byte
}

// u replays a U leaf of ns nanoseconds whose visit costs nodeNs of
// walking: it adds nodeNs to the worker's unabsorbed walk and spins for
// ns less as much of that walk as ns can absorb. The replay's wall time
// then carries each leaf's length and not the walk wherever the worker
// ran. Subtracting the walk afterwards, from the most loaded worker as
// the paper does, undercounts it when a team's workers ran one after the
// other on one core (as two-thread teams of short sections do when the
// second worker starts late), and the prediction comes out slow by the
// walk of the workers that ran first.
func (a *acct) u(ns int64, nodeNs float64) {
	a.walk += nodeNs
	d := min(int64(a.walk), ns)
	a.walk -= float64(d)
	a.busy += spin.For(ns-d) + d
}

// replayer replays plans with one schedule, thread count and walk cost.
type replayer struct {
	sched   par.Schedule
	threads int
	walk    machine.Walk
}

// sec replays one run of a section on the calling goroutine, which is
// worker 0 of the section's team, accounting into a.
func (r *replayer) sec(sp *secPlan, a *acct) {
	for _, ns := range sp.pre {
		a.u(ns, r.walk.NodeNs)
	}
	if sp.n > 0 {
		if r.sched.PerTask() {
			// No workers: the section's own setup runs once, as
			// recorded.
			if sp.setup > 0 {
				a.u(sp.setup, r.walk.NodeNs)
			}
			r.spawnTeam(sp, a)
		} else {
			r.team(sp, a)
		}
	}
	for _, ns := range sp.post {
		a.u(ns, r.walk.NodeNs)
	}
}

// team replays the section's tasks with a worksharing team. Worker 0 is
// the goroutine that entered the section and takes its unabsorbed walk
// along; what the team leaves unabsorbed goes back to it as its most
// loaded worker's (or the team's total over t, when larger).
func (r *replayer) team(sp *secPlan, a *acct) {
	accts := make([]acct, min(r.threads, sp.n))
	accts[0].walk, a.walk = a.walk, 0
	par.ForWorker(sp.n, r.threads, r.sched, func(w, i int) {
		if a := &accts[w]; sp.setup > 0 && !a.strandDone {
			a.strandDone = true
			a.u(sp.setup, r.walk.NodeNs)
		}
		r.task(sp.task(i), &accts[w])
	})
	var sum, most float64
	for i := range accts {
		sum += accts[i].walk
		most = max(most, accts[i].walk)
		a.busy += accts[i].busy
	}
	a.walk += max(most, sum/float64(r.threads))
}

// spawnTeam replays the section's tasks one goroutine each.
func (r *replayer) spawnTeam(sp *secPlan, a *acct) {
	var busy atomic.Int64
	var sum, most atomic.Uint64 // float64 bits
	par.ForWorker(sp.n, r.threads, r.sched, func(_, i int) {
		var mine acct
		r.task(sp.task(i), &mine)
		busy.Add(mine.busy)
		addFloat(&sum, mine.walk)
		maxFloat(&most, mine.walk)
	})
	a.busy += busy.Load()
	a.walk += max(math.Float64frombits(most.Load()), math.Float64frombits(sum.Load())/float64(r.threads))
}

// task replays one task instance, accounting into a.
func (r *replayer) task(tp *taskPlan, a *acct) {
	a.walk += r.walk.NodeNs // visiting the task
	// The worker's first task with setup runs all of it; later ones
	// none (a spawned task's acct is its own: it always runs it).
	pays := tp.setup && !a.setupDone
	if pays {
		a.setupDone = true
	}
	for k := range tp.items {
		it := &tp.items[k]
		switch it.kind {
		case itemU:
			a.u(it.ns, r.walk.NodeNs)
		case itemSetup:
			if pays {
				a.u(it.ns, r.walk.NodeNs)
			}
		case itemL:
			for range it.reps {
				a.walk += r.walk.NodeNs
				it.lk.mu.Lock()
				a.busy += spin.For(it.ns)
				it.lk.data++
				it.lk.mu.Unlock()
			}
		case itemSec:
			for range it.reps {
				a.walk += r.walk.NodeNs + r.walk.CallNs
				r.sec(it.sec, a)
			}
		}
	}
}

func addFloat(p *atomic.Uint64, d float64) {
	for {
		old := p.Load()
		if p.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

func maxFloat(p *atomic.Uint64, v float64) {
	for {
		old := p.Load()
		if math.Float64frombits(old) >= v || p.CompareAndSwap(old, math.Float64bits(v)) {
			return
		}
	}
}

// counts returns the number of nodes one replay of sp visits and the
// nested calls it makes, over all workers together.
func counts(sp *secPlan) (nodes, calls float64) {
	memo := map[*secPlan][2]float64{}
	var sec func(sp *secPlan) [2]float64
	sec = func(sp *secPlan) [2]float64 {
		if c, ok := memo[sp]; ok {
			return c
		}
		c := [2]float64{float64(len(sp.pre) + len(sp.post)), 0}
		for k, run := range sp.runs {
			end := sp.n
			if k+1 < len(sp.runs) {
				end = sp.runs[k+1].start
			}
			reps := float64(end - run.start)
			c[0] += reps // the task visit
			for _, it := range run.task.items {
				switch it.kind {
				case itemU, itemSetup:
					c[0] += reps
				case itemL:
					c[0] += reps * float64(it.reps)
				case itemSec:
					in := sec(it.sec)
					c[0] += reps * float64(it.reps) * (1 + in[0])
					c[1] += reps * float64(it.reps) * (1 + in[1])
				}
			}
		}
		memo[sp] = c
		return c
	}
	c := sec(sp)
	return c[0], c[1]
}
