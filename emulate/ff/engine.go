package ff

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
	"gonum.org/v1/gonum/stat/distuv"
)

// The engine is a discrete-event emulation of goroutines on t cores.
//
// Every logical goroutine runs a program: a stack of frames walking the
// tree. A goroutine on a core runs its U nodes locally (nothing else can
// see them) and stops only at an interaction point: a lock request, a
// fork, a chunk fetch, a spawn, a join, its own end. Interaction points
// are processed in global time order through a priority heap
// of events (events.go); ties go to the event queued first, and the
// goroutine being processed keeps going while its clock is still the
// earliest (so it needs no heap operation at all in that case).

// The files of the engine, by concern:
//
//   - engine.go: the state of one emulation and the event loop (run).
//   - events.go: events and their heap.
//   - goroutine.go: goroutines, their frames and teams.
//   - cores.go: cores, the run queue, wake-ups and the runnext slot.
//   - schedule.go: the schedules: how a section forks, hands out its
//     tasks in chunks and joins.
//   - mutex.go: the sync.Mutex model: acquire, hold, release, hand-off,
//     barging, starvation and the charges of waking waiters.
//   - noise.go: the machine's noise and the hand-off latency draws.
//   - walk.go, batch.go, lockstep.go, cycle.go: the shortcuts (closed
//     forms) that take many steps at once with exactly the step-by-step
//     result, but spawnSkip (cycle.go), within a wake-up of it.
//   - grid.go: the time grid that makes the closed forms exact.
//   - spans.go: timeline spans.

// state is one emulation of one section run.
type state struct {
	t    int
	rule schedule
	// What the schedule says, resolved for this run's overheads and
	// thread count: whether tasks are goroutines of their own, what a
	// spawn costs and how many may run at once (0: no limit), and the
	// size and cost of a fetch from a team's shared counter, and its
	// extra cost from another core (fetchC 0: the schedule has none the
	// closed forms can use).
	perTask    bool
	spawnNs    float64
	spawnLimit int
	fetchC     int64
	fetchNs    float64
	fetchMigNs float64
	// serveNs is how long the counter's line is taken by a fetch that
	// moves it (Overheads.ChunkServe; 0 where fetches do not move it).
	serveNs float64
	// chunkCurve is what a fetch that moves the counter's line costs
	// by how soon its worker asks again (Overheads.ChunkCurve; its
	// EndNs, the short end's reach, 0 where fetches do not move it).
	chunkCurve machine.ChunkCurve
	burden     float64
	// gridBurden is set when burden is a multiple of 1/gridScale (as
	// Emulator rounds it): then a whole-nanosecond length times burden
	// is on the grid, and the closed forms hold (see batch).
	gridBurden bool
	// ov holds the spin window resolved (Overheads.LockSpin, which
	// reaches the last spin check): a lock waiter whose lock comes free
	// within LockSpinNs of asking is still awake and takes it at its
	// next check; past that, it had parked (partly, over the next
	// LockSpinRampNs; see lockWake).
	ov machine.Overheads
	// spinStep is how often a spinning waiter checks its lock
	// (Overheads.SpinCheckNs, taken out of ov once: a release looks at
	// every spinning waiter's next check).
	spinStep float64
	// indexedFlight is how long a Lock for an indexed critical section
	// from another core is in flight (see flightNs), worked out once.
	indexedFlight float64
	// lockNs is what a Lock costs beside the hold (take): LockNs, and
	// on one thread Overheads.LockLocal, worked out once. On one core
	// nothing else touches the lock's line, and an uncontended Lock's
	// atomics overlap the task's work around them, where LockNs times
	// them back to back. On more cores a Lock costs LockNs even where
	// the lock was last taken on the same core and nobody waits: the
	// cheaper cost there left the fine test's lock-bound loops too fast
	// (docs/measurements.md), for a reason the engine does not model.
	lockNs float64
	wake   float64 // wake-up latency of an idle core in this run
	// hoU is the position (a quantile, in (0, 1)) in the latency
	// distribution of the run's next lock hand-off, hoSigma the σ of
	// the log-normal hand-off latency distribution (the wake-up
	// latency's where the profile has no spread of its own; 0: no spread
	// known, every hand-off takes the run's quantile); see lockWake.
	hoU, hoSigma float64
	// noise is set when the machine's noise is emulated: every lock
	// hold is stretched by the hiccups that fall in it (see noisy).
	// nzMu and nzSigma are the log-normal of their lengths, nzScale the
	// factor that takes their mean share back out of the recorded hold,
	// nzU the position in the length distribution of the next one;
	// nzGap is the recorded hold time from one hiccup to the next and
	// nzAcc the hold time since the last one, both in grid units (1/
	// gridScale ns), so that the closed forms can add up many holds
	// exactly (see quietHolds).
	noise                       bool
	nzMu, nzSigma, nzScale, nzU float64
	nzGap, nzAcc                int64
	nzHits                      int // hiccups emulated so far

	h     evHeap
	seq   uint64
	now   float64
	ready readyQueue
	idle  []int // idle cores (a stack)

	waking int // core wake-ups in flight
	// chainNs is Overheads.WakeStepNs on the grid: where it is set, Go's
	// scheduler wakes idle cores for new goroutines one at a time (see
	// wakeIdle), and chainCore is the core whose wake-up for them is in
	// flight (-1: none).
	chainNs   float64
	chainCore int32
	wakes     int // core wake-ups with latency > 0 so far
	// maxG bounds the goroutines the emulation holds at once (0:
	// MaxGoroutines; see newG).
	maxG int

	p        *prog
	lockList []*mutex // by dense lock index
	gs       []*gor   // every goroutine, by id
	infos    map[*cnode]*secInfo
	free     []*gor
	teams    []*team // recycled teams

	end       float64
	busy      float64
	coreSince []float64 // when the core's goroutine went on it
	// coreSeq counts, per core, the goroutines started on it and the
	// fresh ones made ready from it: a change ends the pin of the
	// goroutine in its runnext slot (see pinned).
	coreSeq []uint32

	// Timeline (spans == nil: off).
	spans     *[]emulate.Span
	maxSpans  int
	offset    float64
	idleSince []float64
	idleKind  []string

	// Counters of charged overheads, for tests.
	nFork, nJoin, nChunk, nSpawn, nLock, nHandoff int

	err error
	// clean is set when the emulation ended with every goroutine
	// ended (and so back on the free list).
	clean bool
	// woke is set once a core wake-up has taken effect; late once a
	// woken core found a goroutine to run or a goroutine became ready
	// after a wake-up took effect (see sectionRun.inert).
	woke, late bool
	// rootFree is set while the event at the heap's root has been
	// dealt with and may be reused by start instead of popped.
	rootFree bool
	// steppers is lockstep's scratch list; lsCool counts the events to
	// let pass before lockstep looks again after it could not help.
	steppers []stepper
	lsCool   int
	// pureTail is the run whose tail lockstepPure last found too short
	// for two rounds of its members: it does not look there again.
	pureTail runAt
	// aheadUntil is when a spawner that queued its spawns ahead of the
	// next event (spawnAhead) comes back.
	aheadUntil float64
	// cycleAt is spawnCycle's last checkpoint, cycleBy what the cycle
	// before it moved, and cycles how many checkpoints of the same
	// spawner and run in a row it has seen (0: none).
	cycleAt spawnCheck
	cycleBy cycleDelta
	cycles  int
	// cycleSpawns counts the spawns spawnCycle and spawnPeriod added at
	// once, for tests.
	cycleSpawns int64
	// periodAt is spawnPeriod's saved state and periodCur its scratch;
	// periodRun the run they belong to, periodPower and periodLam
	// Brent's power and steps since the saved state, periodTries the
	// spawns looked at in the run.
	periodAt, periodCur                 periodState
	periodRun                           *taskRun
	periodPower, periodLam, periodTries int
	// onlyPeriods leaves spawn cycles to spawnPeriod alone, for tests.
	onlyPeriods bool
	// exactSpawn turns off spawnSkip, the one shortcut that is not
	// exact (for tests that compare the shortcuts with the step-by-step
	// emulation); skipRun, skipAt and skipN are spawnSkip's run, its
	// checkpoint and the spawns since it.
	exactSpawn bool
	skipRun    *taskRun
	skipAt     spawnCheck
	skipN      int64
	// stepwise turns off every shortcut (walk, batch, lockstep): the
	// node-by-node emulation the shortcuts must agree with, for tests.
	stepwise bool
	// budget is the prediction's step budget (nil: none), which the
	// emulation spends budgetEvery steps at a time; unspent counts the
	// steps taken since it last did (events, turns of run's loop, and
	// nodes walked past).
	budget  *emulate.Budget
	unspent int64
}

// budgetEvery is how many steps an emulation takes between two looks at
// its budget: often enough that a spent budget stops it within
// microseconds, rarely enough that the shared counter costs nothing.
const budgetEvery = 1 << 10

// step counts n steps of the emulation against its budget (small
// enough to inline; spend does the rest).
func (s *state) step(n int64) {
	s.unspent += n
	if s.unspent >= budgetEvery {
		s.spend()
	}
}

// spend takes the steps counted so far from the budget, and fails the
// emulation (ErrOverBudget) when the budget is spent.
func (s *state) spend() {
	if s.budget != nil && !s.budget.Spend(s.unspent) {
		s.fail("%w of %.3g steps", emulate.ErrOverBudget, s.budget.Limit())
	}
	s.unspent = 0
}

// reset prepares s for a new emulation, keeping what it allocated
// before (goroutines, frames, the heap, the tables); the section infos
// it looked up are kept for another emulation of the same prog.
func (s *state) reset(p *prog, threads int, rule schedule, burden float64, ov machine.Overheads, wake float64) {
	gs, free, h, idle, lockList := s.gs, s.free, s.h[:0], s.idle[:0], s.lockList
	if !s.clean || len(free) != len(gs) {
		free = free[:0]
		for _, g := range gs {
			g.frames = g.frames[:0]
			g.team, g.lock, g.resume, g.core, g.pinCore = nil, nil, resNone, -1, -1
			g.noSpin = false
			free = append(free, g)
		}
	}
	// One lock state per lock id, reused.
	for len(lockList) < len(p.lockIDs) {
		lockList = append(lockList, &mutex{})
	}
	lockList = lockList[:len(p.lockIDs)]
	for i, lk := range lockList {
		w := lk.waiters
		clear(w.buf)
		*lk = mutex{idx: int32(i), releaseAt: math.Inf(-1), waiters: deque{buf: w.buf}, lastCore: -1}
	}
	infos, coreSince, coreSeq := s.infos, s.coreSince, s.coreSeq
	if infos == nil {
		infos = map[*cnode]*secInfo{}
	} else if s.p != p {
		// The infos are another prog's.
		clear(infos)
	}
	if cap(coreSince) < threads {
		coreSince = make([]float64, threads)
		coreSeq = make([]uint32, threads)
	}
	coreSince, coreSeq = coreSince[:threads], coreSeq[:threads]
	clear(coreSeq)
	ready := s.ready
	ready.clear()
	// The window on the grid, as the charges are (a measured one is
	// already: a median of waits in whole nanoseconds).
	spin, ramp := ov.LockSpin()
	ov.LockSpinNs, ov.LockSpinRampNs = onGrid(spin), onGrid(ramp)
	*s = state{
		t: threads, rule: rule, burden: burden, gridBurden: isInt(burden), ov: ov, wake: wake,
		p: p, h: h, idle: idle, ready: ready, lockList: lockList,
		infos: infos, gs: gs, free: free, coreSince: coreSince, coreSeq: coreSeq, teams: s.teams,
		steppers: s.steppers[:0], stepwise: s.stepwise, onlyPeriods: s.onlyPeriods, exactSpawn: s.exactSpawn, budget: s.budget, maxG: s.maxG,
	}
	if p50, p90 := ov.WakeP50Ns, ov.WakeP90Ns; wake > 0 && p50 > 0 && p90 > p50 && !math.IsInf(p90, 0) {
		// The run's first hand-off takes the run's own quantile.
		s.hoSigma = machine.LogNormal(p50, p90).Sigma
		s.hoU = distuv.UnitNormal.CDF(math.Log(wake/p50) / s.hoSigma)
	}
	if h, h90 := ov.LockHandoffNs, ov.LockHandoffP90Ns; h > 0 && h90 > h && !math.IsInf(h90, 0) {
		// The hand-off's own spread, at the run's position (the
		// median without a wake-up spread).
		if s.hoSigma == 0 {
			s.hoU = 0.5
		}
		s.hoSigma = machine.LogNormal(h, h90).Sigma
	}
	s.spinStep = s.ov.SpinCheckNs()
	s.indexedFlight = s.ov.LockMigrateNs - onGrid(s.ov.LockMigrateNs/2)
	s.lockNs = s.ov.LockNs
	if threads == 1 {
		s.lockNs = s.ov.LockLocal()
	}
	s.chainNs, s.chainCore = onGrid(max(ov.WakeStepNs, 0)), -1
	s.perTask, s.spawnNs, s.spawnLimit = rule.spawning(&s.ov, threads)
	s.fetchC, s.fetchNs, s.fetchMigNs = rule.shared(&s.ov)
	s.serveNs, s.chunkCurve = 0, machine.ChunkCurve{}
	if s.fetchMigNs > 0 {
		s.serveNs = onGrid(ov.ChunkServe())
		s.chunkCurve = s.ov.ChunkCurve()
	}
	s.resetNoise(ov)
}

// sectionRun is the outcome of one emulation of one section run.
type sectionRun struct {
	parallel, busy float64
	wakes          int
	// inert is set when every core wake-up came too late to matter:
	// each found no goroutine waiting for a core, and none became
	// ready after the first, and no hiccup of the machine's noise was
	// emulated (the runs place them differently; see state.noisy).
	// Then the section runs the same with any
	// longer wake-up latency: until the first wake-up takes effect the
	// two runs are the same, and after it the woken cores only go
	// idle, and nothing asks for an idle core again (only making a
	// goroutine ready does; a pending wake-up that fires into an empty
	// queue changes nothing but the order of equal-time look-ups).
	inert bool
	// runs is the number of emulations behind the numbers.
	runs int
	// Charged overheads, counted.
	nFork, nJoin, nChunk, nSpawn, nLock, nHandoff int
}

// emulateOnce emulates one run of sec with wake-up latency wake, reusing
// s (nil: a new state).
func emulateOnce(s *state, p *prog, threads int, rule schedule, burden float64, ov machine.Overheads, wake float64, spans *[]emulate.Span, maxSpans int, offset float64) (sectionRun, error) {
	if s == nil {
		s = &state{}
	}
	s.reset(p, threads, rule, burden, ov, wake)
	if spans != nil {
		s.spans, s.maxSpans, s.offset = spans, maxSpans, offset
		s.idleSince = make([]float64, threads)
		s.idleKind = make([]string, threads)
		for i := range s.idleKind {
			s.idleKind[i] = emulate.SpanIdle
		}
	}
	for c := threads - 1; c >= 1; c-- {
		s.idle = append(s.idle, c)
	}
	g0 := s.newG()
	g0.frames = append(g0.frames, frame{kind: fSec, node: p.root(), sec: p.root()})
	s.start(g0, 0)
	for len(s.h) > 0 && s.err == nil {
		s.step(1)
		ev := s.h[0]
		s.now = ev.t
		switch ev.kind {
		case evG:
			if s.lsCool <= 0 {
				if s.perTask {
					if s.spawnLimit == 0 && (s.lockstepSpawn() || s.lockstepSpawnPure()) {
						continue
					}
				} else if len(s.h) > 1 && (s.lockstep() || s.lockstepPure()) {
					continue
				}
				s.lsCool = len(s.h)
			}
			s.lsCool--
			if t, again := s.run(s.gs[ev.id]); again {
				s.seq++
				s.h[0].t, s.h[0].seq = t, s.seq
				heap0Fix(s)
				continue
			}
		case evWake, evSteal:
			s.rootFree = true
			s.wakeCore(int(ev.id), ev.kind == evSteal)
		case evRelease:
			s.rootFree = true
			if lk := s.lockList[ev.id]; lk.evPending && lk.evAt == ev.t {
				s.release(lk)
			}
		}
		// The root event is done with; start may have reused it.
		if s.rootFree {
			s.rootFree = false
			s.pop0()
		}
	}
	if s.err != nil {
		return sectionRun{}, s.err
	}
	if s.ready.len() > 0 || len(s.idle) != threads {
		return sectionRun{}, fmt.Errorf("section %q: emulation stalled with goroutines left waiting (internal error)", p.name(p.root()))
	}
	s.clean = true
	if spans != nil {
		for c := 0; c < threads; c++ {
			if s.end > s.idleSince[c] {
				s.span(c, s.idleSince[c], s.end, s.idleKind[c], "", nil)
			}
		}
	}
	return sectionRun{
		parallel: s.end, busy: s.busy, wakes: s.wakes, inert: s.woke && !s.late && s.nzHits == 0,
		nFork: s.nFork, nJoin: s.nJoin, nChunk: s.nChunk, nSpawn: s.nSpawn, nLock: s.nLock, nHandoff: s.nHandoff,
	}, nil
}

// info returns the section info of section node n: own, filled in,
// when n is dense, else the prog's shared one (prog.info), which the
// state remembers so that the emulation asks the prog only once.
func (s *state) info(n *cnode, own *secInfo) *secInfo {
	if denseInfo(n, own) {
		return own
	}
	if in, ok := s.infos[n]; ok {
		return in
	}
	in := s.p.info(n)
	s.infos[n] = in
	return in
}

// pay charges g the cost ns of an interaction point of frame f (a fork,
// a spawn) once, counting it in *n, and reports whether g's clock has
// reached the current time; when it has not, the caller yields and comes
// back to the same point, which f.charged keeps from being charged again.
func (s *state) pay(g *gor, f *frame, n *int, ns float64, what string) bool {
	if !f.charged {
		f.charged = true
		*n++
		s.overhead(g, ns, what, f.node)
	}
	if !s.at(g) {
		return false
	}
	f.charged = false
	return true
}

func (s *state) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

// run advances g, the goroutine of the current event, until it must wait
// for earlier events (returns its clock and true) or it blocks or ends
// (returns false).
func (s *state) run(g *gor) (float64, bool) {
	switch g.resume {
	case resJoin:
		g.resume = resNone
		s.overhead(g, s.ov.JoinNs, "join", nil)
	case resRetry:
		if g.noSpin {
			// g parked at once for its lock and a normal-mode Unlock
			// readied it: it is switched in before it tries the lock
			// again, which stays free for others meanwhile.
			s.switchIn(g)
			if !s.at(g) {
				return g.clock, true
			}
		}
		g.resume = resNone
		if !s.retry(g) {
			return 0, false
		}
	case resSlot:
		// A slot for its next spawn came free (see stepSec): nothing
		// to charge.
		g.resume = resNone
	case resDebt:
		g.resume = resNone
		if s.spans != nil {
			s.redraw(g)
		}
		g.clock += g.debt
		g.debt = 0
	case resLock:
		g.resume = resNone
		lk := g.lock
		g.lock = nil
		if g.parked {
			// A direct hand-off (starvation mode): Go runs the waiter
			// at once on the unlocker's core.
			s.nHandoff++
		}
		s.holdLock(g, lk, 0)
	}
	for s.err == nil {
		s.step(1)
		if len(g.frames) == 0 {
			if !s.at(g) {
				return g.clock, true
			}
			s.exit(g)
			return 0, false
		}
		top := len(g.frames) - 1
		f := &g.frames[top]
		switch f.kind {
		case fTask:
			if s.spans == nil && !f.walked && !s.stepwise {
				switch s.walk(g, f) {
				case stCont:
					g.frames = g.frames[:top]
					continue
				case stYield:
					return g.clock, true
				}
			}
			f.walked = false
			if r := f.run; r != nil && r.flat && s.spans == nil && !s.stepwise && f.i == r.iL {
				// The L of a flat task, from its run (see walkFlat).
				if t, again, ok := s.stepL(g, f, r.lockID, r.indexedL, float64(r.lenL)*s.burden, 1, nil, nil); !ok {
					return t, again
				}
				continue
			}
			if f.i >= int(f.node.n()) {
				g.frames = g.frames[:top]
				continue
			}
			c := &s.p.kids(f.node)[f.i]
			switch c.kind() {
			case tree.KindU:
				if c.setup() && !s.paysSetup(g, top) {
					f.i++
					f.rep = 0
					continue
				}
				d := float64(c.len()) * float64(c.count()-f.rep) * s.burden
				if s.spans != nil {
					s.span(g.core, g.clock, g.clock+d, emulate.SpanTask, s.p.name(f.node), f.sec)
				}
				g.clock += d
				f.i++
				f.rep = 0
			case tree.KindL:
				if t, again, ok := s.stepL(g, f, c.ref(), c.indexed(), float64(c.len())*s.burden, c.count(), f.node, c); !ok {
					return t, again
				}
			case tree.KindSec:
				f.rep++
				if f.rep >= c.count() {
					f.i++
					f.rep = 0
				}
				g.frames = append(g.frames, frame{kind: fSec, node: c, sec: c})
			default:
				s.fail("task %q holds a %s node", s.p.name(f.node), c.kind())
			}
		case fSec, fWorker:
			var st step
			if f.kind == fSec {
				st = s.stepSec(g, top)
			} else {
				st = s.stepWorker(g, top)
			}
			switch st {
			case stYield:
				return g.clock, true
			case stBlock:
				return 0, false
			}
		}
	}
	return 0, false
}

// stepL runs, for g, the L at task frame f's position: a hold of l ns
// on lock id, an indexed critical section if indexed, repeated count
// times (c, the L node of task f.node, names it in a timeline; nil
// without one). It reports ok when g goes on; else run returns t and
// again: g must wait for earlier events, or is in flight for the lock's
// line (it keeps its core), or blocked.
func (s *state) stepL(g *gor, f *frame, id int32, indexed bool, l float64, count int64, task, c *cnode) (t float64, again, ok bool) {
	if !s.at(g) {
		return g.clock, true, false
	}
	f.rep++
	if f.rep >= count {
		f.i++
		f.rep = 0
	}
	if !s.acquire(g, id, indexed, l, task, c, f.sec) {
		if g.resume == resRetry {
			// In flight: g keeps its core.
			return g.clock, true, false
		}
		return 0, false, false
	}
	return 0, false, true
}

// paysSetup reports whether the task of frame top of g runs its
// per-worker setup: a task a worker runs (the frame below is its
// fWorker frame) pays it in the worker's first task that has any, and a
// task that is a goroutine of its own (spawn) always does.
func (s *state) paysSetup(g *gor, top int) bool {
	f := &g.frames[top]
	if f.payer || top == 0 || g.frames[top-1].kind != fWorker {
		return true
	}
	wf := &g.frames[top-1]
	if wf.setupPaid {
		return false
	}
	wf.setupPaid, f.payer = true, true
	return true
}

func (s *state) overhead(g *gor, d float64, name string, sec *cnode) {
	if d <= 0 {
		return
	}
	s.span(g.core, g.clock, g.clock+d, emulate.SpanOverhead, name, sec)
	g.clock += d
}

// serialU runs d ns of a section's own computation on g.
func (s *state) serialU(g *gor, d float64, sec *cnode) {
	d *= s.burden
	if d <= 0 {
		return
	}
	if s.spans != nil {
		s.span(g.core, g.clock, g.clock+d, emulate.SpanSerial, s.p.name(sec), sec)
	}
	g.clock += d
}
