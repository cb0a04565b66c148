package ff

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
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
// of events (heap.go); ties go to the event queued first, and the
// goroutine being processed keeps going while its clock is still the
// earliest (so it needs no heap operation at all in that case).

type evKind uint8

const (
	evG       evKind = iota // goroutine g goes on at t
	evWake                  // a woken core becomes available at t
	evRelease               // lock lk is released at t and has waiters
	evSteal                 // a woken core that backed off from a runnext goroutine becomes available at t
)

// event holds no pointers (goroutines and locks are indices into the
// state's tables), so the heap is not scanned by the garbage collector
// and moving events needs no write barriers.
type event struct {
	t    float64
	seq  uint64
	id   int32 // goroutine (evG), lock (evRelease) or core (evWake, evSteal) index
	kind evKind
}

// evHeap is a min-heap of events by (t, seq) (see heap.go).
type evHeap []event

type frameKind uint8

const (
	fSec    frameKind = iota // the encountering goroutine of a section
	fWorker                  // a team worker running its chunks
	fTask                    // one task instance
)

// frame phases of fSec.
const (
	phInit = iota
	phFork
	phJoin
	phDone
	phSpawn
)

type frame struct {
	kind  frameKind
	phase uint8
	node  *cnode
	info  *secInfo
	team  *team
	sec   *cnode // innermost section, for spans
	// run is the run a fTask frame's task comes from, when a worker
	// took it from a run table (nil otherwise).
	run *taskRun
	// fTask and spawn walk: child index and repetitions done.
	i   int
	rep int64
	// fWorker:
	w      int
	cur    cursor
	left   int64 // tasks left in the current chunk
	nextLo int64 // static: start of the next chunk; -1 when done
	// charged is set once the cost before an interaction point (fork,
	// spawn, chunk fetch) has been charged, so that coming back to the
	// point after yielding does not charge it again.
	charged bool
	// walked is set on a fTask frame that walk has just stopped at a
	// node run's general loop must handle.
	walked bool
}

// step is what advancing a frame did.
type step uint8

const (
	stCont  step = iota // go on with g
	stYield             // g must wait for earlier events
	stBlock             // g blocked or ended
)

type resumeKind uint8

const (
	resNone resumeKind = iota
	resJoin
	resLock
	// resRetry: g was woken by an Unlock in normal mode (see release)
	// and tries the lock again when it runs.
	resRetry
	// resDebt: g yielded its core in the middle of its work (see
	// yieldTo); g.debt of it is left to run when it gets a core again.
	resDebt
)

// gor is one logical goroutine.
type gor struct {
	id     int32
	clock  float64
	core   int
	last   int // the core g last ran on
	frames []frame
	team   *team // the team whose join waits for this goroutine
	resume resumeKind
	lock   *lockState
	lockL  float64 // length of the L to run after the lock is handed over
	lockN  string
	reqAt  float64 // when g asked for the lock it waits for
	// waitStart is when g first asked for the lock it waits for (a
	// retry keeps it): sync.Mutex starves after StarvationNs.
	waitStart float64
	parked    bool // g waited for the lock past the spin window (LockSpinNs)
	// noSpin: g asked for its lock while more goroutines waited for a
	// core than cores were being woken for them, so it parked at once
	// instead of spinning (sync.Mutex spins only while its P has nothing
	// else to run: runtime_canSpin; a goroutine a waking core will take,
	// such as a new team's worker, sits on another P); only with a
	// goroutine switch cost (Overheads.LockSwitchNs). When g is given
	// the lock it parked for so, its core ran other goroutines meanwhile,
	// and it must be switched in before it can use the lock (holdLock
	// charges LockSwitchNs and clears noSpin). A waiter that parked after
	// spinning, its thread asleep, pays LockHandoffNs instead, which
	// covers its switch.
	noSpin bool
	// debt is the work g has left before its next event when it was
	// made to yield its core (resDebt).
	debt float64
	// gen counts the times g was freed, telling a recycled gor from
	// the goroutine it was (lockState.holder).
	gen uint32
	// pinCore >= 0: g was made ready fresh by the goroutine on that core
	// and sits in its runnext slot while state.coreSeq[pinCore] is still
	// pinSeq (see state.pinned).
	pinCore int32
	pinSeq  uint32
	// moved holds, when a timeline is recorded, the spans g had drawn
	// past the time it yielded its core (resDebt; the first starts at
	// that time), to be drawn again where it resumes.
	moved []emulate.Span
}

// team is the shared state of one section instance.
type team struct {
	own     secInfo // the info of a dense section
	info    *secInfo
	k       int // workers (worksharing)
	pending int // goroutines other than the encountering one still running
	waiter  *gor
	spawned int   // spawn: goroutines spawned
	next    int64 // dynamic, guided: next task index
	cur     cursor
	sec     *cnode
}

// StarvationNs is sync.Mutex's starvation threshold: a waiter that has
// waited longer than this (counting every retry) switches the mutex to
// starvation mode, in which Unlock hands the lock directly to the first
// waiter and nobody barges.
const StarvationNs = 1e6

// lockState is one lock id. A lock is free at time x when it has no
// waiters and releaseAt <= x; releaseAt is +Inf while a waiter has been
// handed the lock but has no core yet.
type lockState struct {
	idx       int32
	releaseAt float64
	waiters   deque
	evPending bool
	// starving is sync.Mutex's starvation mode (see release).
	starving bool
	// evAt is the time of the pending release event (evPending); an
	// event at another time is stale and ignored.
	evAt float64
	// holder is the goroutine that took the lock last, while its gen
	// is holderGen: the one whose Unlock hands the lock over.
	holder    *gor
	holderGen uint32
}

// hold records g as lk's holder until t.
func (lk *lockState) hold(g *gor, t float64) {
	lk.releaseAt, lk.holder, lk.holderGen = t, g, g.gen
}

// pushRelease queues lk's release event at t.
func (s *state) pushRelease(lk *lockState, t float64) {
	lk.evPending, lk.evAt = true, t
	s.push(event{t: t, kind: evRelease, id: lk.idx})
}

// ring is a ring buffer (a double-ended queue); its capacity is a power
// of two.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

// deque is a ring buffer of goroutines: a lock's waiters.
type deque = ring[*gor]

func (d *ring[T]) len() int { return d.n }

func (d *ring[T]) grow() {
	nb := make([]T, max(8, 2*len(d.buf)))
	for i := 0; i < d.n; i++ {
		nb[i] = d.buf[(d.head+i)&(len(d.buf)-1)]
	}
	d.buf, d.head = nb, 0
}

func (d *ring[T]) pushBack(x T) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = x
	d.n++
}

func (d *ring[T]) pushFront(x T) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.head = (d.head - 1) & (len(d.buf) - 1)
	d.buf[d.head] = x
	d.n++
}

func (d *ring[T]) popFront() T {
	x := d.buf[d.head]
	var zero T
	d.buf[d.head] = zero
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	return x
}

// at returns a pointer to the i-th entry from the front, valid until
// the next push.
func (d *ring[T]) at(i int) *T { return &d.buf[(d.head+i)&(len(d.buf)-1)] }

// clear empties d, keeping its buffer.
func (d *ring[T]) clear() {
	clear(d.buf)
	d.head, d.n = 0, 0
}

// readyEntry is an entry of the ready queue: a goroutine g, or, with g
// nil, n fresh goroutines alike (spawned in one go by spawnRun, or one
// spawned task), each to run one task node of run as a member of team.
// A fresh entry holds no goroutine: popReady makes one when a core takes
// it, so a spawn of millions of tasks queues small entries side by side
// instead of a goroutine each.
type readyEntry struct {
	g    *gor
	node *cnode
	run  *taskRun
	team *team
	n    int64
	// batch: spawnRun queued the entry, and a next spawnRun of the same
	// run may add to it.
	batch bool
	// pinCore and pinSeq are a fresh entry's runnext slot (see pin).
	pinCore int32
	pinSeq  uint32
}

// count returns the number of goroutines e stands for.
func (e *readyEntry) count() int64 {
	if e.g != nil {
		return 1
	}
	return e.n
}

// readyQueue is the FIFO of runnable goroutines (see readyEntry).
type readyQueue struct {
	entries ring[readyEntry]
	total   int // goroutines
}

// len returns the number of goroutines queued.
func (q *readyQueue) len() int { return q.total }

// at returns the i-th entry from the front.
func (q *readyQueue) at(i int) *readyEntry { return q.entries.at(i) }

// pushBack queues g.
func (q *readyQueue) pushBack(g *gor) {
	q.entries.pushBack(readyEntry{g: g})
	q.total++
}

// pushFront queues g at the front.
func (q *readyQueue) pushFront(g *gor) {
	q.entries.pushFront(readyEntry{g: g})
	q.total++
}

// dropFront removes the front entry, which stood for n goroutines.
func (q *readyQueue) dropFront(n int64) {
	q.entries.popFront()
	q.total -= int(n)
}

// clear empties the queue.
func (q *readyQueue) clear() {
	q.entries.clear()
	q.total = 0
}

// pushFresh queues n fresh goroutines of run r's task, members of tm,
// made ready by the goroutine on core from (see pin); with batch, it may
// add them to the last entry, queued the same way. With n = 1 and no
// batch it is spawnG's single task, whose node is r's or, without a run,
// node. The task's section is tm's.
func (s *state) pushFresh(n int64, node *cnode, r *taskRun, tm *team, batch bool, from int) {
	q := &s.ready
	if last := q.entries.len() - 1; batch && last >= 0 {
		if b := q.at(last); b.g == nil && b.batch && b.team == tm && b.run == r {
			b.n += n
			q.total += int(n)
			b.pinCore, b.pinSeq = s.pin(from)
			return
		}
	}
	e := readyEntry{node: node, run: r, team: tm, n: n, batch: batch}
	e.pinCore, e.pinSeq = s.pin(from)
	q.entries.pushBack(e)
	q.total += int(n)
}

// popReady takes the goroutine at the front of the ready queue.
func (s *state) popReady() *gor {
	q := &s.ready
	e := q.at(0)
	if g := e.g; g != nil {
		q.dropFront(1)
		return g
	}
	ng := s.newG()
	ng.frames = append(ng.frames, frame{kind: fTask, node: e.node, sec: e.team.sec, run: e.run})
	ng.team = e.team
	if e.n <= 1 {
		ng.pinCore, ng.pinSeq = e.pinCore, e.pinSeq
		q.dropFront(1)
		return ng
	}
	e.n--
	q.total--
	return ng
}

// state is one emulation of one section run.
type state struct {
	t      int
	sched  par.Schedule
	burden float64
	// gridBurden is set when burden is a multiple of 1/gridScale (as
	// Emulator rounds it): then a whole-nanosecond length times burden
	// is on the grid, and the closed forms hold (see batch).
	gridBurden bool
	// ov holds the spin window resolved (Overheads.LockSpin): a lock
	// waiter whose lock comes free within LockSpinNs of asking is still
	// awake and takes it at once; past that, it had parked (partly, over
	// the next LockSpinRampNs; see lockWake).
	ov   machine.Overheads
	wake float64 // wake-up latency of an idle core in this run
	// hoU is the position (a quantile, in (0, 1)) in the latency
	// distribution of the run's next lock hand-off, hoSigma the σ of
	// the log-normal wake-up latency distribution (0: no spread known,
	// every hand-off takes the run's quantile); see lockWake.
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
	wakes  int // core wake-ups with latency > 0 so far

	p        *prog
	lockList []*lockState // by dense lock index
	gs       []*gor       // every goroutine, by id
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
	// infoFree holds section infos to reuse.
	infoFree []*secInfo
	// stepwise turns off every shortcut (walk, batch, lockstep): the
	// node-by-node emulation the shortcuts must agree with, for tests.
	stepwise bool
}

// reset prepares s for a new emulation, keeping what it allocated
// before (goroutines, frames, the heap, the tables); the section-info
// cache is kept too (clear it between calls).
func (s *state) reset(p *prog, threads int, sched par.Schedule, burden float64, ov machine.Overheads, wake float64) {
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
		lockList = append(lockList, &lockState{})
	}
	lockList = lockList[:len(p.lockIDs)]
	for i, lk := range lockList {
		w := lk.waiters
		clear(w.buf)
		*lk = lockState{idx: int32(i), releaseAt: math.Inf(-1), waiters: deque{buf: w.buf}}
	}
	infos, coreSince, coreSeq := s.infos, s.coreSince, s.coreSeq
	if infos == nil {
		infos = map[*cnode]*secInfo{}
	}
	if cap(coreSince) < threads {
		coreSince = make([]float64, threads)
		coreSeq = make([]uint32, threads)
	}
	coreSince, coreSeq = coreSince[:threads], coreSeq[:threads]
	clear(coreSeq)
	ready := s.ready
	ready.clear()
	ov.LockSpinNs, ov.LockSpinRampNs = ov.LockSpin()
	*s = state{
		t: threads, sched: sched, burden: burden, gridBurden: isInt(burden), ov: ov, wake: wake,
		p: p, h: h, idle: idle, ready: ready, lockList: lockList,
		infos: infos, gs: gs, free: free, coreSince: coreSince, coreSeq: coreSeq, teams: s.teams,
		steppers: s.steppers[:0], infoFree: s.infoFree, stepwise: s.stepwise,
	}
	if p50, p90 := ov.WakeP50Ns, ov.WakeP90Ns; wake > 0 && p50 > 0 && p90 > p50 && !math.IsInf(p90, 0) {
		// The run's first hand-off takes the run's own quantile.
		s.hoSigma = math.Log(p90/p50) / distuv.UnitNormal.Quantile(0.9)
		s.hoU = distuv.UnitNormal.CDF(math.Log(wake/p50) / s.hoSigma)
	}
	s.resetNoise(ov)
}

// resetNoise sets up the emulation of the machine's noise (see noisy)
// from ov, or none where ov has no noise measured. The run's first
// hiccup comes after the run's wake-up quantile of the mean hold time
// between two, and takes that quantile of the length distribution, so
// that the runs of a section (one per wake-up latency sample) place and
// size their hiccups differently.
func (s *state) resetNoise(ov machine.Overheads) {
	hz, p50, p90 := ov.NoiseHz, ov.NoiseP50Ns, ov.NoiseP90Ns
	if !(hz > 0) || !(p50 > 0) || math.IsInf(hz, 0) || math.IsInf(p50, 0) {
		return
	}
	s.noise = true
	s.nzMu = math.Log(p50)
	if p90 > p50 && !math.IsInf(p90, 0) {
		s.nzSigma = math.Log(p90/p50) / distuv.UnitNormal.Quantile(0.9)
	}
	mean := p50 * math.Exp(s.nzSigma*s.nzSigma/2)
	s.nzScale = max(1-hz/1e9*mean, 0)
	s.nzU = 0.5
	if s.hoSigma > 0 {
		s.nzU = s.hoU
	}
	s.nzGap = int64(min(max(math.Round(1e9/hz*gridScale), 1), 1<<62))
	s.nzAcc = int64(s.nzU * float64(s.nzGap))
}

// noisy returns lock hold l (burdened, on the grid) with the machine's
// noise: a core loses its goroutine for a moment NoiseHz times a second
// (a timer interrupt, the hypervisor), for log-normal lengths with
// median NoiseP50Ns and 90th percentile NoiseP90Ns. The recorded lengths
// carry those hiccups on average, so l is first scaled down by their
// mean share of the time; then every hiccup that falls in the hold
// (one per 1/NoiseHz seconds of recorded hold time, counted across the
// run's holds) is added whole, each taking the quantile 1/φ further on
// than the one before. The mean hold is unchanged; what changes is that now and then
// one hold is tens of microseconds longer, as real ones are, and every
// waiter waits for it: that is what turns a contended loop's
// collision-free rhythm (the next request just after each release) into
// a convoy of hand-offs in real runs, which an emulation without noise
// never leaves. Hiccups outside lock holds hold up only their own
// goroutine, which the recorded means already carry; they are not
// emulated. The result is on the grid.
func (s *state) noisy(l float64) float64 {
	if !s.noise {
		return l
	}
	out := s.held(l)
	s.nzAcc += int64(l * gridScale)
	for s.nzAcc >= s.nzGap {
		s.nzAcc -= s.nzGap
		s.nzHits++
		out += onGrid(math.Exp(s.nzMu + s.nzSigma*nextZ(&s.nzU)))
	}
	return out
}

// held is a hold of recorded length l without hiccups: l itself, or
// with noise l scaled down by the noise's mean share (see noisy), on the
// grid.
func (s *state) held(l float64) float64 {
	if !s.noise {
		return l
	}
	return onGrid(l * s.nzScale)
}

// quietHolds returns how many holds of recorded length l, from now on,
// take no hiccup of the machine's noise: the closed forms (batch,
// batchDynamic, lockstep, lockstepSpawn) run at most that many at once,
// each held(l) long, and then account for them with passHolds, which
// leaves the noise exactly where noisy, hold by hold, would have. Without
// noise, or for holds of no length, there is no bound.
func (s *state) quietHolds(l float64) int64 {
	lg := int64(l * gridScale)
	if !s.noise || lg <= 0 {
		return math.MaxInt64
	}
	return max(s.nzGap-1-s.nzAcc, 0) / lg
}

// passHolds accounts for k quiet holds of recorded length l (see
// quietHolds).
func (s *state) passHolds(l float64, k int64) {
	if s.noise {
		s.nzAcc += k * int64(l*gridScale)
	}
}

// goldenStep is the step, in quantile, from one draw of a run's lock
// hand-off latencies (or noise hiccups) to the next: 1/φ, whose multiples
// modulo 1 spread evenly over (0, 1) however many there are.
const goldenStep = 0.6180339887498949

// nextZ returns the standard normal quantile at position *u (in (0, 1))
// and moves *u on by goldenStep, modulo 1: a deterministic sequence of
// draws that covers the distribution evenly.
func nextZ(u *float64) float64 {
	at := min(max(*u, 1e-9), 1-1e-9)
	*u += goldenStep
	*u -= math.Floor(*u)
	return distuv.UnitNormal.Quantile(at)
}

// nextHandoffFactor returns the factor on LockHandoffNs of the run's
// next lock hand-off, e^(σz) for the next draw z (nextZ).
func (s *state) nextHandoffFactor() float64 {
	return math.Exp(s.hoSigma * nextZ(&s.hoU))
}

// span appends a timeline span when recording.
func (s *state) span(core int, start, end float64, kind, name string, sec *cnode) {
	if s.spans == nil || end <= start {
		return
	}
	s.addSpan(emulate.Span{
		Thread: core, StartNs: s.offset + start, EndNs: s.offset + end,
		Kind: kind, Name: name, Section: s.p.name(sec),
	})
}

// addSpan appends x to the timeline unless it is full.
func (s *state) addSpan(x emulate.Span) {
	if s.maxSpans > 0 && len(*s.spans) >= s.maxSpans {
		return
	}
	*s.spans = append(*s.spans, x)
}

// cutSpans cuts the spans drawn on core at the current time: the parts
// past it are removed from the timeline and appended to moved, in time
// order, which it returns.
func (s *state) cutSpans(core int, moved []emulate.Span) []emulate.Span {
	now := s.offset + s.now
	sp := *s.spans
	first := len(moved)
	cut := false
	for i := len(sp) - 1; i >= 0; i-- {
		x := &sp[i]
		if x.Thread != core {
			continue
		}
		if x.EndNs <= now {
			break // a core's spans are drawn in time order
		}
		tail := *x
		tail.StartNs = max(tail.StartNs, now)
		moved = append(moved, tail)
		if x.StartNs < now {
			x.EndNs = now
		} else {
			x.Thread, cut = -1, true // removed below
		}
	}
	slices.Reverse(moved[first:])
	if cut {
		*s.spans = slices.DeleteFunc(sp, func(x emulate.Span) bool { return x.Thread < 0 })
	}
	return moved
}

// redraw draws the spans g moved when it yielded its core again on the
// core it resumes on, shifted to the time it resumes.
func (s *state) redraw(g *gor) {
	if len(g.moved) == 0 {
		return
	}
	d := s.offset + g.clock - g.moved[0].StartNs
	for _, x := range g.moved {
		x.Thread, x.StartNs, x.EndNs = g.core, x.StartNs+d, x.EndNs+d
		s.addSpan(x)
	}
	g.moved = g.moved[:0]
}

func (s *state) push(e event) {
	s.seq++
	e.seq = s.seq
	s.h = append(s.h, e)
	s.h.up(len(s.h) - 1)
}

func (s *state) pop0() {
	n := len(s.h) - 1
	s.h[0] = s.h[n]
	s.h[n] = event{}
	s.h = s.h[:n]
	if n > 0 {
		s.h.down(0)
	}
}

// at reports whether g, the goroutine of the event being processed, may
// perform an interaction at its clock now: its clock is the current time,
// or earlier than every other pending event (then time moves to it).
func (s *state) at(g *gor) bool {
	if g.clock <= s.now {
		return true
	}
	n := len(s.h)
	if n > 1 && s.h[1].t <= g.clock {
		return false
	}
	if n > 2 && s.h[2].t <= g.clock {
		return false
	}
	s.now = g.clock
	return true
}

func (s *state) info(n *cnode, own *secInfo) *secInfo {
	if denseInfo(n, own) {
		return own
	}
	if in, ok := s.infos[n]; ok {
		return in
	}
	var in *secInfo
	if k := len(s.infoFree); k > 0 {
		in = s.infoFree[k-1]
		s.infoFree = s.infoFree[:k-1]
	}
	in = buildInfo(s.p, n, in)
	s.infos[n] = in
	return in
}

// lock returns the state of the lock of dense index i.
func (s *state) lock(i int32) *lockState { return s.lockList[i] }

func (s *state) newG() *gor {
	if n := len(s.free); n > 0 {
		g := s.free[n-1]
		s.free = s.free[:n-1]
		return g
	}
	g := &gor{core: -1, pinCore: -1, id: int32(len(s.gs))}
	s.gs = append(s.gs, g)
	return g
}

func (s *state) freeG(g *gor) {
	g.gen++
	g.frames = g.frames[:0]
	g.moved = g.moved[:0]
	g.team, g.lock, g.resume, g.core, g.pinCore = nil, nil, resNone, -1, -1
	s.free = append(s.free, g)
}

// start puts g on core at the current time.
func (s *state) start(g *gor, core int) {
	if s.spans != nil && s.now > s.idleSince[core] {
		s.span(core, s.idleSince[core], s.now, s.idleKind[core], "", nil)
	}
	g.core, g.pinCore = core, -1
	g.clock = s.now
	s.coreSince[core] = s.now
	s.coreSeq[core]++
	if s.rootFree {
		// The root event is done with: g's event takes its place,
		// saving a push and a pop.
		s.rootFree = false
		s.seq++
		s.h[0] = event{t: s.now, seq: s.seq, kind: evG, id: g.id}
		s.h.down(0)
		return
	}
	s.push(event{t: s.now, kind: evG, id: g.id})
}

// leave takes g off its core at the current time; the core runs the next
// ready goroutine or goes idle. why is the idle span kind for the core.
func (s *state) leave(g *gor, why string) {
	s.rootFree = true // g's event is the root, and g no longer needs it
	s.freeCore(s.offCore(g), why)
}

// offCore takes g off its core at the current time, counting the busy
// time, and returns the core.
func (s *state) offCore(g *gor) int {
	core := g.core
	g.core, g.last = -1, core
	s.busy += s.now - s.coreSince[core]
	return core
}

func (s *state) freeCore(core int, why string) {
	if s.spans != nil {
		s.idleSince[core], s.idleKind[core] = s.now, why
	}
	if s.ready.len() > 0 {
		s.start(s.popReady(), core)
		return
	}
	s.idle = append(s.idle, core)
}

func (s *state) popIdle() int {
	n := len(s.idle) - 1
	c := s.idle[n]
	s.idle = s.idle[:n]
	return c
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

// popIdleFor takes an idle core for g, preferring the core g last ran on
// when it is still idle. There must be an idle core.
func (s *state) popIdleFor(g *gor) int {
	k := len(s.idle) - 1
	for i, c := range s.idle {
		if c == g.last {
			k = i
			break
		}
	}
	c := s.idle[k]
	s.idle[k] = s.idle[len(s.idle)-1]
	s.idle = s.idle[:len(s.idle)-1]
	return c
}

// makeReady makes g runnable at the current time. A fresh goroutine (new
// from a fork or a spawn) queues at the back, and when a core is idle and
// no wake-up already in flight covers it, an idle core is woken: it is
// available after the wake-up latency, unless a busy core frees up first
// and takes the goroutine. A goroutine resumed from a join or handed a
// lock goes to the front of the queue and takes an idle core at once (its
// own cost is JoinNs or LockHandoffNs).
func (s *state) makeReady(g *gor, fresh bool) {
	if s.woke {
		s.late = true
	}
	if !fresh {
		if len(s.idle) > 0 {
			s.start(g, s.popIdleFor(g))
			return
		}
		s.ready.pushFront(g)
		return
	}
	s.ready.pushBack(g)
	s.readied()
}

// readied wakes an idle core for the fresh goroutine just queued, when
// one is idle and no wake-up already in flight covers it (see
// makeReady).
func (s *state) readied() {
	if len(s.idle) == 0 || s.ready.len() <= s.waking {
		return
	}
	core := s.popIdle()
	if s.wake <= 0 {
		s.start(s.popReady(), core)
		return
	}
	s.wakes++
	s.wakeAt(core, s.now+s.wake, "wake")
}

// wakeAt wakes idle core (taken off the idle list) for a goroutine in
// the ready queue: it becomes available at time at, the span up to it
// drawn as the overhead what.
func (s *state) wakeAt(core int, at float64, what string) {
	s.waking++
	if s.spans != nil {
		if s.now > s.idleSince[core] {
			s.span(core, s.idleSince[core], s.now, s.idleKind[core], "", nil)
		}
		s.span(core, s.now, at, emulate.SpanOverhead, what, nil)
		s.idleSince[core], s.idleKind[core] = at, emulate.SpanIdle
	}
	s.push(event{t: at, kind: evWake, id: int32(core)})
}

// pin returns the runnext slot of a goroutine just made ready fresh by
// the goroutine on core (a fork's worker, a spawned task), where Go's
// newproc puts it: it stays there, and an idle core's thread must back
// off before taking it (see wakeCore), until the core starts another
// goroutine or makes another one ready. Without a runnext back-off
// (RunnextNs = 0), or for core < 0, nothing is pinned: pinCore is -1.
func (s *state) pin(core int) (pinCore int32, pinSeq uint32) {
	if core < 0 || !(s.ov.RunnextNs > 0) {
		return -1, 0
	}
	s.coreSeq[core]++
	return int32(core), s.coreSeq[core]
}

// pinned reports whether ready queue entry e is still in a busy core's
// runnext slot.
func (s *state) pinned(e *readyEntry) bool {
	pc, ps := e.pinCore, e.pinSeq
	if e.g != nil {
		pc, ps = e.g.pinCore, e.g.pinSeq
	}
	return pc >= 0 && s.coreSeq[pc] == ps
}

// wakeCore makes a woken core available at the current time: it takes
// the goroutine at the front of the ready queue, or goes idle. When that
// goroutine is the only one and sits in a busy core's runnext slot
// (pinned), the woken core first backs off for RunnextNs, as Go's work
// stealing does before it takes a running P's runnext (runqgrab's
// usleep(3), which a VM's timer slack stretches to tens of
// microseconds); steal is set when it has (an evSteal event), and it then
// takes whatever is at the front. The goroutine's own core takes it
// meanwhile if it frees up first.
func (s *state) wakeCore(core int, steal bool) {
	s.woke = true
	if !steal && s.ready.len() == 1 && s.pinned(s.ready.at(0)) {
		s.late = true
		at := s.now + s.ov.RunnextNs
		if s.spans != nil {
			s.span(core, s.now, at, emulate.SpanOverhead, "steal", nil)
			s.idleSince[core] = at
		}
		s.push(event{t: at, kind: evSteal, id: int32(core)})
		return
	}
	s.waking--
	if s.ready.len() > 0 {
		s.late = true
		s.start(s.popReady(), core)
		return
	}
	s.idle = append(s.idle, core)
}

// release is an Unlock of lk, which has waiters, at the current time
// (lk.releaseAt). It follows sync.Mutex:
//
//   - A first waiter that asked within the spin window (LockSpinNs) is
//     still spinning: it
//     takes the lock at once (charged LockNs).
//   - In starvation mode (lk.starving), the lock is handed directly to
//     the first waiter, which runs at once on the unlocker's core at no
//     extra cost, the unlocker yielding it (yieldTo); the mode ends when
//     that waiter is the last one or waited less than StarvationNs.
//   - Otherwise (normal mode, with LockHandoffNs > 0) the Unlock only
//     wakes the first waiter: the lock is free, anybody may take it
//     (barge) meanwhile, and the waiter runs after the time its parked
//     thread takes to wake (lockWake; readyLate) and tries again
//     (retry); if the lock is taken then, it queues again at the front
//     and parks, and once it has waited longer than StarvationNs in all
//     the mutex starves.
//
// With LockHandoffNs = 0 every hand-off is direct (the ideal FIFO lock).
func (s *state) release(lk *lockState) {
	lk.evPending = false
	if lk.releaseAt > s.now {
		// A goroutine barged in and holds the lock: the Unlock that
		// wakes a waiter is its.
		if !math.IsInf(lk.releaseAt, 1) {
			s.pushRelease(lk, lk.releaseAt)
		}
		return
	}
	w := lk.waiters.popFront()
	waited := s.now - w.reqAt
	w.parked = w.noSpin || waited > s.ov.LockSpinNs
	if w.parked && !lk.starving && s.ov.LockHandoffNs > 0 {
		// Normal mode: wake w; the lock stays free.
		s.nHandoff++
		w.resume = resRetry
		d := s.lockWake(waited)
		if s.wake > 0 {
			s.wakes++
			s.late = true
		}
		if s.readyLate(w, d) {
			// As many Unlocks have a thread to wake as waiters slept.
			s.delayHolder(lk, onGrid(s.ov.LockWakeNs*s.asleep(waited)))
		}
		return
	}
	starving := lk.starving
	if lk.starving && (lk.waiters.len() == 0 || s.now-w.waitStart < StarvationNs) {
		lk.starving = false
	}
	if starving && s.yieldTo(lk, w) {
		return
	}
	if len(s.idle) == 0 {
		// w waits for a core with other goroutines, as in Go, where
		// it runs next on the unlocker's core: no thread to wake.
		w.parked = false
	}
	lk.releaseAt = math.Inf(1)
	s.makeReady(w, false)
}

// delayHolder charges d (Overheads.LockWakeNs) to the goroutine whose
// Unlock of lk just woke a parked waiter and an idle core for it: in Go
// that Unlock readies the waiter and wakes an idle core's thread for it
// before it returns (a futex wake; about 9 µs on the project's VM), while
// the lock itself is already free. Where no core is idle, the waiter
// only joins a run queue, which costs next to nothing, and nothing is
// charged. The unlocker ran ahead of the current time only through
// work that meets no other goroutine (it stops at every lock request
// that comes after a pending event, this release among them), so moving
// its pending event and its clock d later is exact. Nothing is charged
// when the unlocker is not on a core any more or is the goroutine of the
// event at hand (the Unlock came at the very time it acts again).
func (s *state) delayHolder(lk *lockState, d float64) {
	if !(d > 0) {
		return
	}
	u, i := s.holderEvent(lk)
	if i < 0 {
		return
	}
	s.span(int(u.core), u.clock, u.clock+d, emulate.SpanOverhead, "unlock wake", nil)
	s.h[i].t += d
	u.clock += d
	s.h.down(i)
}

// holderEvent returns lk's holder, when it is still on a core running
// ahead of the current time, and the index of its pending event in the
// heap below the root (the root is the event at hand); i < 0 when there
// is none such.
func (s *state) holderEvent(lk *lockState) (u *gor, i int) {
	u = lk.holder
	if u == nil || u.gen != lk.holderGen || u.core < 0 || u.resume != resNone {
		return nil, -1
	}
	for i := 1; i < len(s.h); i++ {
		if e := &s.h[i]; e.kind == evG && e.id == u.id {
			return u, i
		}
	}
	return nil, -1
}

// yieldTo hands lk, released now in starvation mode, to its waiter w
// the way Go's Unlock does then (runtime_Semrelease with handoff): w is
// readied into the unlocker's runnext and the unlocker yields its core
// to it at once, going to the back of the run queue itself, where a
// core woken for it (wake-up latency) or the first core to free up
// picks it up. The unlocker, which ran ahead of the current time, keeps
// the rest of its work up to its next event as a debt. yieldTo reports
// false, changing nothing, when the unlocker is not on a core any more
// (it ended or blocked at this same instant).
func (s *state) yieldTo(lk *lockState, w *gor) bool {
	u, i := s.holderEvent(lk)
	if i < 0 || u == w {
		return false
	}
	// Drop u's event (the root, this release, stays in place: every
	// other event comes after it).
	last := len(s.h) - 1
	s.h[i] = s.h[last]
	s.h = s.h[:last]
	if i < last {
		s.h.down(i)
		s.h.up(i)
	}
	u.debt = max(u.clock-s.now, 0)
	u.resume = resDebt
	core := s.offCore(u)
	if s.spans != nil {
		// u had drawn its work up to u.clock on this core: what lies
		// past now moves with u, and the core goes straight to w.
		u.moved = s.cutSpans(core, u.moved[:0])
		s.idleSince[core] = s.now
	}
	if w.parked {
		s.nHandoff++
		w.parked = false // counted here, not again when w runs
	}
	lk.releaseAt = math.Inf(1)
	s.start(w, core)
	s.makeReady(u, true)
	return true
}

// lockWake is the latency of waking a lock waiter that waited waited ns
// (more than LockSpinNs) in this run: LockHandoffNs is its median, and
// its spread is the core wake-up latency's (the two are assumed alike:
// log-normal with WakeP90Ns/WakeP50Ns). The run's first hand-off takes
// the run's wake-up quantile, and each next one the quantile 1/φ further
// on, modulo 1 (nextHandoffFactor): in a real run every hand-off draws
// its own latency, and a run that charged one latency at every hand-off
// could lock into a rhythm that real noise breaks (on a Test1 sample with
// 40% of every 70 µs iteration under one lock, such runs waited for the
// lock 13 times, 1 ms each, or 197 times, where the real runs wait 30 to
// 50 times, 2-7 ms in all, and the prediction moved by 16% when the
// runnext back-off moved by 5 µs). Without a measured spread (p90 <= p50),
// every hand-off takes the run's quantile. Over waits of LockSpinNs to
// LockSpinNs+LockSpinRampNs it ramps up linearly from 0: there real
// waiters are a mix of ones still spinning and ones already asleep
// (measured on the project's VM: none asleep after 2.7 µs, nine in ten
// after 3.3 µs), and the ramp keeps predictions continuous in the wait.
// Rounded to the time grid.
func (s *state) lockWake(waited float64) float64 {
	d := s.ov.LockHandoffNs
	if s.hoSigma > 0 {
		d *= s.nextHandoffFactor()
	} else if s.wake > 0 && s.ov.WakeP50Ns > 0 && !math.IsInf(s.ov.WakeP50Ns, 0) {
		d *= s.wake / s.ov.WakeP50Ns
	}
	d *= s.asleep(waited)
	if r := onGrid(d); r > 0 {
		return r
	}
	return d
}

// asleep is the share of lock waiters that waited waited ns (more than
// LockSpinNs) and had parked, their thread asleep: 1 past the spin
// window's ramp, rising linearly from 0 over it (see lockWake).
func (s *state) asleep(waited float64) float64 {
	if spin, ramp := s.ov.LockSpinNs, s.ov.LockSpinRampNs; waited < spin+ramp {
		return max(waited-spin, 0) / ramp
	}
	return 1
}

// readyLate makes g, woken from a parked wait, runnable now at the front
// of the ready queue (Go readies it into the unlocker's runnext) and, when
// a core is idle and no wake-up in flight covers it, wakes an idle core
// (the one g left if it is idle), which becomes available d from now;
// a busy core that frees up first takes g instead. It reports whether it
// woke a core.
func (s *state) readyLate(g *gor, d float64) (woken bool) {
	if s.woke {
		s.late = true
	}
	s.ready.pushFront(g)
	if len(s.idle) == 0 || s.ready.len() <= s.waking {
		return false
	}
	s.wakeAt(s.popIdleFor(g), s.now+d, "handoff")
	return true
}

// barge reports whether a goroutine may take lk, free but with waiters,
// ahead of them: sync.Mutex in normal mode lets it (see release); the
// ideal lock (LockHandoffNs = 0) and a starving mutex do not.
func (s *state) barge(lk *lockState) bool {
	return s.ov.LockHandoffNs > 0 && !lk.starving
}

// parksAtOnce reports whether a goroutine asking for a taken lock now
// parks at once instead of spinning (gor.noSpin): with a switch cost
// (LockSwitchNs), when more goroutines wait for a core than cores are
// being woken for them.
func (s *state) parksAtOnce() bool {
	return s.ov.LockSwitchNs > 0 && s.ready.len() > s.waking
}

// retry runs when g, woken by a normal-mode Unlock, gets its core: it
// takes the lock if it is free, else queues again at the front (Go
// queues a waiter that waited before LIFO) and parks. It reports
// whether g holds the lock.
func (s *state) retry(g *gor) bool {
	lk := g.lock
	if lk.releaseAt <= s.now {
		g.lock = nil
		s.holdLock(g, lk)
		return true
	}
	lk.waiters.pushFront(g)
	g.resume, g.reqAt = resLock, s.now
	g.noSpin = s.parksAtOnce()
	if s.now-g.waitStart > StarvationNs {
		lk.starving = true
	}
	if !lk.evPending && !math.IsInf(lk.releaseAt, 1) {
		s.pushRelease(lk, max(lk.releaseAt, s.now))
	}
	s.leave(g, emulate.SpanLockWait)
	return false
}

// exit ends g at the current time.
func (s *state) exit(g *gor) {
	s.rootFree = true // g's event is the root, and g no longer needs it
	s.end = max(s.end, s.now)
	core := g.core
	s.busy += s.now - s.coreSince[core]
	g.core = -1
	tm := g.team
	s.freeG(g)
	if tm != nil {
		tm.pending--
		if tm.pending == 0 && tm.waiter != nil {
			w := tm.waiter
			tm.waiter = nil
			// The waiter runs next on this core (Go readies it into
			// this P's runnext).
			if s.spans != nil {
				s.idleSince[core], s.idleKind[core] = s.now, emulate.SpanIdle
			}
			s.start(w, core)
			return
		}
	}
	s.freeCore(core, emulate.SpanIdle)
}

// spawnG makes a fresh goroutine running frame f as member of tm, made
// ready by the goroutine on core from (see pin).
func (s *state) spawnG(f frame, tm *team, from int) {
	ng := s.newG()
	ng.frames = append(ng.frames, f)
	ng.team = tm
	tm.pending++
	ng.pinCore, ng.pinSeq = s.pin(from)
	s.makeReady(ng, true)
}

// spawnTask makes a fresh goroutine running task node c (of run, when a
// run table holds it) as member of tm, made ready by the goroutine on
// core from: spawnG with a fresh frame of c, queued as a fresh entry.
func (s *state) spawnTask(c *cnode, run *taskRun, tm *team, from int) {
	if s.woke {
		s.late = true // as makeReady
	}
	tm.pending++
	s.pushFresh(1, c, run, tm, false, from)
	s.readied()
}

func (s *state) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

// holdLock runs g's pending L (g.lockL) now that g holds lk: the switch
// of a waiter that parked (LockSwitchNs), the lock's own cost, the
// critical section, and the release time, with a release event when
// others wait for lk.
func (s *state) holdLock(g *gor, lk *lockState) {
	if g.noSpin {
		// The lock is g's, but g parked at once: until it is switched
		// in, nobody uses the lock. (g queued last for this lock, and
		// queues again before it is given another.)
		g.noSpin = false
		s.overhead(g, s.ov.LockSwitchNs, "switch", nil)
	}
	s.overhead(g, s.ov.LockNs, "lock", nil)
	st := g.clock
	g.clock += s.noisy(g.lockL)
	s.span(g.core, st, g.clock, emulate.SpanLock, g.lockN, nil)
	lk.hold(g, g.clock)
	if lk.waiters.len() > 0 && !lk.evPending {
		s.pushRelease(lk, lk.releaseAt)
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
		g.resume = resNone
		if !s.retry(g) {
			return 0, false
		}
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
		s.holdLock(g, lk)
	}
	for s.err == nil {
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
			if f.i >= int(f.node.n()) {
				g.frames = g.frames[:top]
				continue
			}
			c := &s.p.kids(f.node)[f.i]
			switch c.kind() {
			case tree.KindU:
				d := float64(c.len()) * float64(c.count()-f.rep) * s.burden
				if s.spans != nil {
					s.span(g.core, g.clock, g.clock+d, emulate.SpanTask, s.p.name(f.node), f.sec)
				}
				g.clock += d
				f.i++
				f.rep = 0
			case tree.KindL:
				if !s.at(g) {
					return g.clock, true
				}
				f.rep++
				if f.rep >= c.count() {
					f.i++
					f.rep = 0
				}
				if !s.acquire(g, c, f.node, f.sec) {
					return 0, false
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

func (s *state) overhead(g *gor, d float64, name string, sec *cnode) {
	if d <= 0 {
		return
	}
	s.span(g.core, g.clock, g.clock+d, emulate.SpanOverhead, name, sec)
	g.clock += d
}

// acquire runs L node c for g at the current time (g.clock == s.now):
// at once when the lock is free, else g queues and blocks (returns false).
func (s *state) acquire(g *gor, c *cnode, task, sec *cnode) bool {
	lk := s.lock(c.ref())
	l := float64(c.len()) * s.burden
	s.nLock++
	if lk.evPending && lk.evAt <= s.now && lk.waiters.len() > 0 && s.barge(lk) {
		// The Unlock at lk.evAt, at this very time, wakes its waiter
		// before g can take the lock (the unlocker does it inside
		// Unlock); its pending event is then stale.
		s.release(lk)
	}
	if lk.releaseAt <= s.now && (lk.waiters.len() == 0 || s.barge(lk)) {
		s.overhead(g, s.ov.LockNs, "lock", sec)
		st := g.clock
		g.clock += s.noisy(l)
		lk.hold(g, g.clock)
		if s.spans != nil {
			s.span(g.core, st, g.clock, emulate.SpanLock, s.lockName(task, c), sec)
		}
		if lk.waiters.len() > 0 && !lk.evPending {
			s.pushRelease(lk, lk.releaseAt)
		}
		return true
	}
	lk.waiters.pushBack(g)
	g.resume, g.lock, g.lockL, g.reqAt, g.waitStart = resLock, lk, l, s.now, s.now
	g.noSpin = s.parksAtOnce()
	if s.spans != nil {
		g.lockN = s.lockName(task, c)
	}
	if !lk.evPending && !math.IsInf(lk.releaseAt, 1) {
		s.pushRelease(lk, max(lk.releaseAt, s.now))
	}
	s.leave(g, emulate.SpanLockWait)
	return false
}

// limit returns the time of the earliest pending event other than the
// one being processed (the heap's root): the goroutine of the root event
// may act alone, with nothing else interleaved, at any time before it.
func (s *state) limit() float64 {
	lim := math.Inf(1)
	if n := len(s.h); n > 1 {
		lim = s.h[1].t
		if n > 2 && s.h[2].t < lim {
			lim = s.h[2].t
		}
	}
	return lim
}

// walk runs task frame f of g, the goroutine of the current event, over
// its U nodes and over its L nodes whose lock is free when g asks for it
// before any other pending event (exactly what run's general loop does
// for them, without a heap look-up per node). It returns stCont when the
// task is done, stYield when f stops at an L that must wait for earlier
// events (g must yield), and stBlock when f stops at a node that run's
// general loop must handle (an L whose lock is taken, a nested section, a
// bad node).
func (s *state) walk(g *gor, f *frame) step {
	lim := s.limit()
	ch := s.p.kids(f.node)
	for f.i < len(ch) {
		c := &ch[f.i]
		switch c.kind() {
		case tree.KindU:
			g.clock += float64(c.len()) * float64(c.count()-f.rep) * s.burden
			f.i++
			f.rep = 0
		case tree.KindL:
			if g.clock > s.now {
				if g.clock >= lim {
					return stYield
				}
				s.now = g.clock
			}
			lk := s.lock(c.ref())
			if lk.waiters.len() > 0 || lk.releaseAt > s.now {
				return stBlock
			}
			f.rep++
			if f.rep >= c.count() {
				f.i++
				f.rep = 0
			}
			s.nLock++
			g.clock += s.ov.LockNs
			g.clock += s.noisy(float64(c.len()) * s.burden)
			lk.hold(g, g.clock)
		default:
			return stBlock
		}
	}
	return stCont
}

// walkNew walks new task frame f of g (see walk) for stepWorker. It
// reports whether the task is done; if not, stepWorker pushes f and
// returns st: stYield when g must yield, stCont when run's general loop
// must take f over.
func (s *state) walkNew(g *gor, f *frame) (done bool, st step) {
	if s.spans != nil || s.stepwise {
		return false, stCont
	}
	switch s.walk(g, f) {
	case stCont:
		return true, stCont
	case stYield:
		return false, stYield
	}
	// run's general loop need not walk f again first.
	f.walked = true
	return false, stCont
}

// gridScale is the number of grid steps per nanosecond: times that are
// multiples of 1/gridScale ns and below maxExact add up exactly in
// float64 (their multiples of the step are integers below 2^53).
const gridScale = 1 << 12

// maxExact bounds the times batch works with (about 36 minutes).
const maxExact = 1 << (52 - 12)

// onGrid returns x rounded to the grid (the nearest multiple of
// 1/gridScale ns).
func onGrid(x float64) float64 { return math.Round(x*gridScale) / gridScale }

// isInt reports whether x is on the grid (a multiple of 1/gridScale ns)
// and in [0, maxExact), where batch's closed forms are exact.
func isInt(x float64) bool {
	if !(x >= 0 && x < maxExact) {
		return false
	}
	y := x * gridScale
	return y == math.Trunc(y)
}

// batch runs up to m tasks of run r (r.oneL: U nodes, one L, U nodes) on
// g, the goroutine of the current event, in one step, and returns how
// many it ran. It runs those whose lock request comes before every other
// pending event (so no other goroutine acts in between; the lock, free
// at the first request, is then released by g itself before each next
// one), which is exactly what walking them one by one does. It runs none
// unless every time involved is on the grid (a burden and a lock cost on
// the grid, as Emulator rounds them, g's clock on it): then the closed
// form c + j·P adds up to exactly the same float64 values as the
// step-by-step sums.
func (s *state) batch(g *gor, r *taskRun, m int64) int64 {
	if s.stepwise {
		return 0
	}
	lr := s.scaled(r.lenL)
	m = min(m, s.quietHolds(lr))
	if m < 2 || !s.gridBurden {
		return 0
	}
	lockNs := s.ov.LockNs
	c := g.clock
	a, l, b := s.scaled(r.preL), s.held(lr), s.scaled(r.postL)
	p := a + lockNs + l + b
	if !isInt(c) || !isInt(lockNs) || !isInt(p) || c+float64(m)*p >= maxExact || c < s.now {
		return 0
	}
	lk := s.lock(r.lockID)
	req := c + a
	if lk.waiters.len() > 0 || lk.releaseAt > req {
		return 0
	}
	// Requests at req + j·p for j < k must come before lim.
	lim := s.limit()
	if req >= lim {
		return 0
	}
	k := m
	if p > 0 && !math.IsInf(lim, 1) {
		// The number of j >= 0 with req + j·p < lim: ceil((lim-req)/p).
		k = min(m, int64(math.Ceil((lim-req)/p)))
		for k > 1 && req+float64(k-1)*p >= lim {
			k--
		}
		for k < m && req+float64(k)*p < lim {
			k++
		}
	}
	last := req + float64(k-1)*p
	s.now = max(s.now, last)
	lk.hold(g, last+lockNs+l)
	g.clock = c + float64(k)*p
	s.nLock += int(k)
	s.passHolds(lr, k)
	return k
}

// batchStatic runs, for static:C, whole chunks of worker frame f (whose
// chunk starting at task lo it has just taken: f.cur, f.left and f.nextLo
// set for it) in one step while they lie in the same run of identical
// tasks: one worker's chunks of a run, C tasks every k·C, take the same
// time as as many tasks back to back (static chunks cost nothing to
// take), so batch does them. It reports whether it ran any.
func (s *state) batchStatic(g *gor, f *frame, lo, c int64) bool {
	if s.stepwise {
		return false
	}
	info := f.info
	if info.dense || s.spans != nil || f.left != c {
		return false
	}
	r := &info.runs[f.cur.run]
	if !r.oneL && !r.pure {
		return false
	}
	stride := int64(f.team.k) * c
	end := r.start + r.count
	// Chunks lo + i·stride, i < j, lie wholly in r.
	if lo+c > end {
		return false
	}
	j := (end-lo-c)/stride + 1
	if j < 2 && c < 2 {
		return false
	}
	var d int64
	if r.pure {
		d = s.batchPure(g, r, j, c)
	} else {
		d = s.batch(g, r, j*c)
	}
	if d == 0 {
		return false
	}
	done, rem := d/c, d%c
	at := lo + done*stride
	if rem == 0 {
		// The next chunk is taken in the usual way.
		f.left, f.nextLo = 0, at
		return true
	}
	f.left = min(c, info.n-at) - rem
	f.cur = info.seekFrom(f.cur, at+rem)
	f.nextLo = at + stride
	return true
}

// batchPure runs on g, in one step, j static:C chunks of c tasks each
// of pure run r (tasks of U nodes only: they interact with nothing, and
// static chunks cost nothing to take) and returns how many tasks it ran:
// j·c, or 0 when the closed form would not add up to exactly the
// chunk-by-chunk sums (the burden, g's clock and the chunk's time on the
// grid; see batch).
func (s *state) batchPure(g *gor, r *taskRun, j, c int64) int64 {
	if !s.gridBurden || j < 2 {
		return 0
	}
	d := float64(c) * r.work * s.burden
	if !isInt(g.clock) || !isInt(d) || g.clock+float64(j)*d >= maxExact {
		return 0
	}
	g.clock += float64(j) * d
	return j * c
}

// batchDynamic, for dynamic:C with a team of two or more, runs on g (the
// worker of frame f, about to take its next chunk) as many whole chunks
// as it can in one step while they come from one run of identical tasks
// (r.oneL): chunk q is taken at c + q·Q (Q = ChunkNs + C·P) and its tasks
// run back to back. It takes them when every chunk fetch and lock request
// comes before every other pending event, so that no other worker takes
// a chunk or the lock in between, and every time involved is an integer,
// so that the closed form adds up to exactly what the step-by-step
// emulation gives (see batch). It reports whether it ran any.
func (s *state) batchDynamic(g *gor, f *frame) bool {
	if s.stepwise {
		return false
	}
	info, tm := f.info, f.team
	if s.sched.Policy != par.Dynamic || tm.k < 2 || info.dense || s.spans != nil || !s.gridBurden || tm.next >= info.n {
		return false
	}
	r := &info.runs[tm.cur.run]
	cs := int64(chunk(s.sched))
	lr := s.scaled(r.lenL)
	jmax := min(r.count-tm.cur.off, s.quietHolds(lr)) / cs
	if !r.oneL || jmax < 1 {
		return false
	}
	lockNs, chunkNs := s.ov.LockNs, s.ov.ChunkNs
	c := g.clock
	a, l := s.scaled(r.preL), s.held(lr)
	p := a + lockNs + l + s.scaled(r.postL)
	q := chunkNs + float64(cs)*p
	if !isInt(c) || !isInt(lockNs) || !isInt(chunkNs) || !isInt(q) || c+float64(jmax)*q >= maxExact || c < s.now {
		return false
	}
	lim := s.limit()
	if c > s.now && c >= lim {
		return false
	}
	lk := s.lock(r.lockID)
	req := c + chunkNs + a
	if lk.waiters.len() > 0 || lk.releaseAt > req {
		return false
	}
	// The last request of chunk j-1 must come before lim.
	tail := chunkNs + float64(cs-1)*p + a
	j := jmax
	if !math.IsInf(lim, 1) {
		if q > 0 {
			j = min(jmax, int64(math.Ceil((lim-c-tail)/q)))
			for j > 0 && c+float64(j-1)*q+tail >= lim {
				j--
			}
			for j < jmax && c+float64(j)*q+tail < lim {
				j++
			}
		} else if c+tail >= lim {
			j = 0
		}
	}
	if j < 1 {
		return false
	}
	last := c + float64(j-1)*q + tail
	s.now = max(s.now, last)
	lk.hold(g, last+lockNs+l)
	g.clock = c + float64(j)*q
	n := j * cs
	s.nLock += int(n)
	s.nChunk += int(j)
	s.passHolds(lr, n)
	tm.next += n
	info.advance(&tm.cur, n)
	f.left = 0
	return true
}

// lockName names L node c of task for the timeline.
func (s *state) lockName(task, c *cnode) string {
	return s.p.name(task) + " lock " + strconv.Itoa(s.p.lockIDs[c.ref()])
}

// scaled returns length x (ns) times the section's burden factor, as
// walk charges it: exactly that, on the grid, when gridBurden is set and
// the product is below maxExact.
func (s *state) scaled(x int64) float64 { return float64(x) * s.burden }

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

// stepSec advances the fSec frame at index top of g: the goroutine that
// encountered a section forks its team (or spawns its tasks), works as
// worker 0, and joins.
func (s *state) stepSec(g *gor, top int) step {
	f := &g.frames[top]
	switch f.phase {
	case phInit:
		tm := s.newTeam()
		tm.sec = f.node
		tm.info = s.info(f.node, &tm.own)
		f.info, f.team = tm.info, tm
		if s.sched.Policy == par.Spawn {
			f.phase = phSpawn
			return stCont
		}
		s.serialU(g, f.info.leadU, f.node)
		f.phase = phFork
		return stCont
	case phFork:
		info := f.info
		k := int(min(int64(s.t), info.n))
		if k > 1 {
			if !s.pay(g, f, &s.nFork, s.ov.ForkNs, "fork") {
				return stYield
			}
		}
		tm := f.team
		tm.k = k
		for w := 1; w < k; w++ {
			s.spawnG(s.workerFrame(tm, w), tm, g.core)
		}
		s.serialU(g, info.midU, f.node)
		f.phase = phJoin
		if k > 0 {
			g.frames = append(g.frames, s.workerFrame(tm, 0))
		}
		return stCont
	case phJoin:
		tm := f.team
		if f.node.nowait() || tm.k <= 1 && tm.spawned == 0 {
			f.phase = phDone
			return stCont
		}
		if !s.at(g) {
			return stYield
		}
		s.nJoin++
		f.phase = phDone
		if tm.pending == 0 {
			s.overhead(g, s.ov.JoinNs, "join", f.node)
			return stCont
		}
		tm.waiter = g
		g.resume = resJoin
		s.leave(g, emulate.SpanIdle)
		return stBlock
	case phDone:
		if tm := f.team; tm != nil && !f.node.nowait() {
			// Every member has ended: the team can be reused.
			f.team, f.info = nil, nil
			*tm = team{}
			s.teams = append(s.teams, tm)
		}
		g.frames = g.frames[:top]
		return stCont
	case phSpawn:
		ch := s.p.kids(f.node)
		if f.i >= len(ch) {
			f.phase = phJoin
			return stCont
		}
		c := &ch[f.i]
		switch c.kind() {
		case tree.KindU:
			s.serialU(g, float64(c.len())*float64(c.count()-f.rep), f.node)
			f.i++
			f.rep = 0
		case tree.KindTask:
			// Spawn the run's tasks one after the other, while g
			// stays the earliest.
			tm := f.team
			var run *taskRun
			if !f.info.dense {
				// f.w counts the task children done: the run index.
				run = &f.info.runs[f.w]
			}
			for {
				if !f.charged && run != nil && s.spawnRun(g, f, run, tm) {
					if f.rep == 0 {
						break
					}
					continue
				}
				if !s.pay(g, f, &s.nSpawn, s.ov.SpawnNs, "spawn") {
					return stYield
				}
				tm.spawned++
				f.rep++
				last := f.rep >= c.count()
				if last {
					f.i++
					f.rep = 0
					f.w++
				}
				// spawnG touches other goroutines only: f stays valid.
				s.spawnTask(c, run, tm, g.core)
				if last {
					break
				}
			}
		default:
			s.fail("section %q holds a %s node", s.p.name(f.node), c.kind())
			return stBlock
		}
		return stCont
	}
	return stCont
}

// spawnRun spawns, in one step, as many of the remaining tasks of run r
// (the task child f.i of the section of spawner frame f, f.rep of them
// spawned already) as g can spawn before any other pending event: each
// costs SpawnNs and happens at its time only if no other event comes
// first (exactly as one by one), and no core is idle, so spawning only
// queues the goroutines (as fresh entries, made when a core takes them).
// It needs every time on the grid, as state.batch does, and reports
// whether it spawned any.
func (s *state) spawnRun(g *gor, f *frame, r *taskRun, tm *team) bool {
	if s.stepwise || s.spans != nil || len(s.idle) > 0 {
		return false
	}
	m := s.p.kids(f.node)[f.i].count() - f.rep
	spawnNs := s.ov.SpawnNs
	c := g.clock
	if m < 2 || !isInt(c) || !isInt(spawnNs) || c < s.now || c+float64(m)*spawnNs >= maxExact {
		return false
	}
	// Spawn i (1..j) happens at c + i·spawnNs: at the current time, or
	// before lim.
	lim := s.limit()
	j := m
	switch {
	case spawnNs == 0:
		if c > s.now && c >= lim {
			j = 0
		}
	case !math.IsInf(lim, 1):
		j = min(m, int64(math.Ceil((lim-c)/spawnNs))-1)
		for j > 0 && c+float64(j)*spawnNs >= lim {
			j--
		}
		for j < m && c+float64(j+1)*spawnNs < lim {
			j++
		}
		j = max(j, 0)
	}
	if j < 2 {
		return false
	}
	g.clock = c + float64(j)*spawnNs
	s.now = max(s.now, g.clock)
	s.nSpawn += int(j)
	tm.spawned += int(j)
	tm.pending += int(j)
	f.rep += j
	if f.rep >= s.p.kids(f.node)[f.i].count() {
		f.i++
		f.rep = 0
		f.w++
	}
	s.pushFresh(j, r.node, r, tm, true, g.core)
	return true
}

func (s *state) newTeam() *team {
	if n := len(s.teams); n > 0 {
		tm := s.teams[n-1]
		s.teams = s.teams[:n-1]
		return tm
	}
	return &team{}
}

// workerFrame is the frame of worker w of tm.
func (s *state) workerFrame(tm *team, w int) frame {
	f := frame{kind: fWorker, team: tm, info: tm.info, w: w, sec: tm.sec}
	n := tm.info.n
	switch s.sched.Policy {
	case par.Static:
		k := int64(tm.k)
		q, r := n/k, n%k
		lo := int64(w)*q + min(int64(w), r)
		size := q
		if int64(w) < r {
			size++
		}
		if size > 0 {
			f.cur = tm.info.seek(lo)
			f.left = size
		}
		f.nextLo = -1
	case par.StaticChunk:
		f.nextLo = int64(w) * int64(chunk(s.sched))
	}
	return f
}

func chunk(sc par.Schedule) int {
	if sc.Chunk < 1 {
		return 1
	}
	return sc.Chunk
}

// stepWorker advances the fWorker frame at index top of g.
func (s *state) stepWorker(g *gor, top int) step {
	f := &g.frames[top]
	info := f.info
	if f.left == 0 {
		// The next chunk.
		switch s.sched.Policy {
		case par.StaticChunk:
			if f.nextLo >= 0 && f.nextLo < info.n {
				c := int64(chunk(s.sched))
				lo := f.nextLo
				f.left = min(c, info.n-lo)
				f.cur = info.seekFrom(f.cur, lo)
				f.nextLo += int64(f.team.k) * c
				if s.batchStatic(g, f, lo, c) {
					return stCont
				}
			}
		case par.Dynamic, par.Guided:
			tm := f.team
			if s.batchDynamic(g, f) {
				return stCont
			}
			if tm.k > 1 {
				if !s.at(g) {
					return stYield
				}
			}
			if tm.next < info.n {
				rem := info.n - tm.next
				var size int64
				if s.sched.Policy == par.Dynamic {
					size = min(int64(chunk(s.sched)), rem)
				} else {
					size = int64(s.sched.GuidedChunk(int(min(rem, math.MaxInt32)), tm.k))
					if size < 1 {
						size = 1
					}
				}
				f.cur = tm.cur
				f.left = size
				tm.next += size
				info.advance(&tm.cur, size)
				if tm.k > 1 {
					s.nChunk++
					s.overhead(g, s.ov.ChunkNs, "chunk", f.sec)
				}
			}
		}
		if f.left == 0 {
			// Out of work.
			g.frames = g.frames[:top]
			return stCont
		}
	}
	if info.dense {
		for f.left > 0 {
			tf := frame{kind: fTask, node: &s.p.nodes[info.node.first()+int32(f.cur.run)], sec: f.sec}
			f.left--
			f.cur.run++
			if done, st := s.walkNew(g, &tf); !done {
				g.frames = append(g.frames, tf)
				return st
			}
		}
		return stCont
	}
	r := &info.runs[f.cur.run]
	if r.pure {
		m := min(f.left, r.count-f.cur.off)
		d := float64(m) * r.work * s.burden
		if s.spans != nil {
			name := s.p.name(r.node)
			if m > 1 {
				name += " ×" + strconv.FormatInt(m, 10)
			}
			s.span(g.core, g.clock, g.clock+d, emulate.SpanTask, name, f.sec)
		}
		g.clock += d
		f.left -= m
		info.advance(&f.cur, m)
		return stCont
	}
	// Identical tasks: in one step as far as batch can, then one by one,
	// each walked at once where it can be.
	m := min(f.left, r.count-f.cur.off)
	var k int64
	if s.spans == nil && r.oneL {
		k = s.batch(g, r, m)
	}
	for k < m {
		tf := frame{kind: fTask, node: r.node, sec: f.sec, run: r}
		k++
		if done, st := s.walkNew(g, &tf); !done {
			f.left -= k
			info.advance(&f.cur, k)
			g.frames = append(g.frames, tf)
			return st
		}
	}
	f.left -= k
	info.advance(&f.cur, k)
	return stCont
}
