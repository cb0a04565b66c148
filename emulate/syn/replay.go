package syn

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
)

// acct is what one worker accounts during a replay. Workers of a team
// write only their own acct, and an acct is padded to acctSize so that
// two workers' accts never share a cache line, nor a pair of lines that a
// core prefetches together, wherever the allocator placed them: the
// written fields lie in its first 64 bytes, and the next acct's begin
// acctSize later.
type acct struct {
	// walk is this worker's drift, in ns: the tree-walking cost it has
	// run up (node visits and nested calls, its own and, for each nested
	// team it entered, that team's residue) that no spin delay has
	// absorbed yet, less the leaves and holds too short to spin (see u);
	// negative where the worker is ahead of the recorded lengths.
	walk float64
	// busy is the work replayed, in ns, by this worker and every
	// goroutine of the nested teams it entered: the recorded lengths of
	// the leaves and critical sections it replayed.
	busy int64
	// run is the run of the worker's last task in its team's section
	// (secPlan.taskNext).
	run int
	// seed is what the worker's next computed leaf computes on (see u):
	// its task's index at the task's start, then the last computed
	// leaf's result.
	seed uint64
	// rng draws the dither of the worker's spins (see u).
	rng rand.PCG
	// strandDone and setupDone are set once the worker has run its
	// section's own per-worker setup and its tasks' (tree.Node.Setup).
	strandDone, setupDone bool
	// ordered is set from a task's start until its first spin: that
	// spin starts once the fetch of the task has completed (see u).
	ordered bool
	_       [acctSize - acctFields]byte
}

// acctFields is the size of acct's fields before its padding (at most
// 64: one cache line), and acctSize the size of a padded acct: between
// the fields of two adjacent accts lie acctSize-acctFields bytes, two
// 64-byte lines and more.
const (
	acctFields = 56
	acctSize   = 256
)

// u replays a U leaf of ns nanoseconds. The worker's walk is its
// drift: how far its replay has fallen behind the recorded lengths
// (negative: ahead). Visiting the leaf adds w.NodeNs to it; the leaf
// then spins for ns less the drift and less the spin's own cost
// (w.SpinNs), so that the worker is back on time after it, wherever it
// ran, give or take the request's dither (up to a quarter of SpinNs
// either way, kept as the new drift). A leaf too short for that (a spin
// costs SpinNs even for a nanosecond's request) is not spun, and the
// worker is ns further ahead, which the next spin makes up.
//
// Subtracting the walk afterwards instead, from the most loaded worker
// as the paper does, undercounts it when a team's workers ran one after
// the other on one core (as two-thread teams of short sections do when
// the second worker starts late), and the prediction comes out slow by
// the walk of the workers that ran first. Spinning a leaf for its length
// less the walk but not less the spin's cost would hold it too long by
// that cost, and skipping a leaf shorter than the walk would take the
// spin's cost away with it: fine-grained sections would replay too slow
// or too fast by a share that grows as their leaves shrink.
//
// A task's first leaf and its last (where the task ends with a leaf;
// leaf with last set) compute instead (spin.Work), for as long as the
// spin would take, where that is at most workMaxNs: the first on the
// task's index, so that it waits for the fetch that gave the task to the
// worker, the last on what the first computed, so that the core computes
// up to the next fetch.
// So a dynamic loop's fetch costs a replayed fine-grained task what it
// costs the program's, where a spin hides part of it. A longer first
// leaf spins once the fetch has completed (spin.ForOrdered): next to it
// the fetch hardly counts.
func (a *acct) u(ns int64, w *costs) { a.leaf(ns, w, false) }

// leaf is u for a leaf that is its task's last item where last is set.
func (a *acct) leaf(ns int64, w *costs, last bool) {
	a.walk += w.NodeNs
	a.busy += ns
	d := a.dither(w.SpinNs / 2)
	if x := float64(ns) - a.walk - w.SpinNs + d; x >= 1 {
		switch {
		case (a.ordered || last) && x+w.SpinNs <= workMaxNs:
			// Computed, for the time the spin would take.
			a.seed = spin.Work(int64((x+w.SpinNs)*w.scale()), a.seed)
		case a.ordered:
			spin.ForOrdered(int64(x))
		default:
			spin.For(int64(x))
		}
		a.ordered = false
		a.walk = d
	} else {
		a.walk -= float64(ns)
	}
}

// dither returns an even draw from [−width/2, width/2): a spin delay
// ends at the first clock read past its request, so leaves of one length
// would all overshoot alike, by anything up to a clock read; requests
// spread over about a clock read's step make the overshoot its mean, and
// the wall time of a replay a smooth function of the lengths.
func (a *acct) dither(width float64) float64 {
	if !(width > 0) {
		return 0
	}
	u := float64(a.rng.Uint64()>>11) / (1 << 53)
	return (u - 0.5) * width
}

// workMaxNs is the longest leaf that u computes rather than spins: a
// computed delay is not exact (a fixed number of rounds, at the rate
// measured when the program started) and loses whatever its core is
// taken away for, and beside leaves longer than a few microseconds the
// fetch it is there for is lost in the noise.
const workMaxNs = 2000

// ditherSeed is the second word of the dither generators' seeds; the
// first is the worker's or the spawned task's index, so that they dither
// apart.
const ditherSeed = 0x9E3779B97F4A7C15

// costs are a replay's walking costs and the scale of its computed
// leaves' requests to spin.Work (spin.WorkScale, measured before the
// replays: Work's rate as measured when the program started can be a
// third off the core's speed later).
type costs struct {
	machine.Walk
	workScale float64
}

// scale returns workScale, or 1 where it is not set (0).
func (c *costs) scale() float64 {
	if c.workScale > 0 {
		return c.workScale
	}
	return 1
}

// replayer replays plans with one schedule, thread count and walk cost.
type replayer struct {
	sched   par.Schedule
	threads int
	walk    costs
	// accts recycles the accounts of spawnTeam's goroutines. An
	// account declared in each spawned task would escape to the heap
	// (the replay recurses through nested sections), and the replay
	// would pay an allocation per task that the program does not.
	accts sync.Pool
}

// sec replays one run of a section on the calling goroutine, which is
// worker 0 of the section's team, accounting into a.
func (r *replayer) sec(sp *secPlan, a *acct) {
	for _, ns := range sp.pre {
		a.u(ns, &r.walk)
	}
	if sp.n > 0 {
		if r.sched.PerTask() {
			// No workers: the section's own setup runs once, as
			// recorded.
			if sp.setup > 0 {
				a.u(sp.setup, &r.walk)
			}
			r.spawnTeam(sp, a)
		} else {
			r.team(sp, a)
		}
	}
	for _, ns := range sp.post {
		a.u(ns, &r.walk)
	}
}

// team replays the section's tasks with a worksharing team. Worker 0 is
// the goroutine that entered the section and takes its unabsorbed walk
// along; what the team leaves unabsorbed goes back to it as its most
// loaded worker's (or the team's total over t, when larger).
func (r *replayer) team(sp *secPlan, a *acct) {
	accts := make([]acct, min(r.threads, sp.n))
	for w := range accts {
		accts[w].rng.Seed(uint64(w), ditherSeed)
	}
	accts[0].walk, a.walk = a.walk, 0
	par.ForWorker(sp.n, r.threads, r.sched, func(w, i int) {
		a := &accts[w]
		if sp.setup > 0 && !a.strandDone {
			a.strandDone = true
			a.u(sp.setup, &r.walk)
		}
		r.task(sp.taskNext(i, &a.run), a, i)
	})
	var sum, most float64
	for i := range accts {
		sum += accts[i].walk
		most = max(most, accts[i].walk)
		a.busy += accts[i].busy
	}
	a.walk += residue(sum, most, r.threads)
}

// residue is what a team of threads cores leaves of its members' drifts
// (acct.walk), sum in all and most the largest positive one (0 if none):
// the most loaded member's, or the total over the cores when larger (more
// goroutines than cores, as with spawn). Where no member fell behind, the
// members ran ahead by their total over the cores.
func residue(sum, most float64, threads int) float64 {
	if most > 0 {
		return max(most, sum/float64(threads))
	}
	return sum / float64(threads)
}

// spawnTeam replays the section's tasks one goroutine each.
func (r *replayer) spawnTeam(sp *secPlan, a *acct) {
	var busy atomic.Int64
	var sum, most atomic.Uint64 // float64 bits
	par.ForWorker(sp.n, r.threads, r.sched, func(_, i int) {
		mine, _ := r.accts.Get().(*acct)
		if mine == nil {
			mine = new(acct)
		}
		*mine = acct{}
		mine.rng.Seed(uint64(i), ditherSeed)
		r.task(sp.task(i), mine, i)
		busy.Add(mine.busy)
		addFloat(&sum, mine.walk)
		maxFloat(&most, mine.walk)
		r.accts.Put(mine)
	})
	a.busy += busy.Load()
	a.walk += residue(math.Float64frombits(sum.Load()), math.Float64frombits(most.Load()), r.threads)
}

// task replays task instance i, accounting into a.
func (r *replayer) task(tp *taskPlan, a *acct, i int) {
	a.walk += r.walk.NodeNs // visiting the task
	// The task's first leaf waits for the fetch that gave it to the
	// worker, as a task computing on its index waits (see u).
	a.ordered, a.seed = true, uint64(i)+1
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
			a.leaf(it.ns, &r.walk, k == len(tp.items)-1)
		case itemSetup:
			if pays {
				a.u(it.ns, &r.walk)
			}
		case itemL:
			// The hold spins SpinNs less than recorded, the spin's
			// own cost making up the rest, dithered as a leaf's (see
			// u); a hold too short to spin at all puts the worker
			// ahead by its length.
			a.busy += it.ns * it.reps
			a.ordered = false
			for range it.reps {
				a.walk += r.walk.NodeNs
				d := a.dither(r.walk.SpinNs / 2)
				hold := it.ns - int64(r.walk.SpinNs-d)
				it.lk.mu.Lock()
				if hold >= 1 {
					spin.For(hold)
				}
				if it.indexed {
					// One of eight lines: the top three bits of k·φ (see guarded).
					k := it.lk.slot
					it.lk.slot = k + 1
					it.lk.data[(k*0x9e3779b97f4a7c15>>61)*8]++
				} else {
					it.lk.data[0]++
				}
				it.lk.mu.Unlock()
				if hold >= 1 {
					a.walk += d
				} else {
					a.walk -= float64(it.ns)
				}
			}
		case itemSec:
			for range it.reps {
				a.walk += r.walk.NodeNs + r.walk.CallNs
				r.sec(it.sec, a)
			}
		}
	}
	a.ordered = false
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

// counts returns the number of nodes one replay of sp visits, the
// nested calls it makes and the tasks it runs, over all workers
// together, its nested sections' included.
func counts(sp *secPlan) (nodes, calls, tasks float64) {
	memo := map[*secPlan][3]float64{}
	var sec func(sp *secPlan) [3]float64
	sec = func(sp *secPlan) [3]float64 {
		if c, ok := memo[sp]; ok {
			return c
		}
		c := [3]float64{float64(len(sp.pre) + len(sp.post)), 0, 0}
		for k, run := range sp.runs {
			end := sp.n
			if k+1 < len(sp.runs) {
				end = sp.runs[k+1].start
			}
			reps := float64(end - run.start)
			c[0] += reps // the task visit
			c[2] += reps
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
					c[2] += reps * float64(it.reps) * in[2]
				}
			}
		}
		memo[sp] = c
		return c
	}
	c := sec(sp)
	return c[0], c[1], c[2]
}
