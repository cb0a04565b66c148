package ff

import (
	"cmp"
	"math"

	"github.com/parallel-prophet/prophet/emulate"
)

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
	// Per-worker setup (tree.Node.Setup): strandPaid is set on a
	// fWorker frame once the worker has run the section's own setup
	// (before its first task), setupPaid once it has run its tasks'
	// (in the first task that has any); payer is set on that task's
	// frame, which pays every setup node it holds.
	strandPaid, setupPaid, payer bool
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
	// resSlot: g, a spawner waiting for one of a limited number of
	// slots (errgroup's SetLimit), got one.
	resSlot
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
	lock   *mutex
	lockL  float64 // length of the L to run after the lock is handed over
	lockN  string
	reqAt  float64 // when g asked for the lock it waits for
	// landNs is how long after reqAt g's first compare-and-swap for its
	// lock lands: the lock's cache-line move (LockMigrateNs, after the
	// moves of those in flight before it) where g asked from another
	// core than the one that took the lock last, 0 otherwise (or once g
	// parked). An Unlock before then is seen as it lands, without a
	// spin check: sync.Mutex's Lock is that compare-and-swap, which
	// waits for the line, and on a machine whose lines move slowly a
	// Lock asked just before the Unlock takes the lock as the line
	// arrives (see spinCheck).
	landNs float64
	// fetchEnd is when g's last charged fetch from a team's counter
	// ended (-Inf: none yet): a fetch that moves the counter's line
	// costs less the sooner g asks again (fetchCosts).
	fetchEnd float64
	// waitStart is when g first asked for the lock it waits for (a
	// retry keeps it): sync.Mutex starves after StarvationNs.
	waitStart float64
	parked    bool // g waited for the lock past the spin window (LockSpinNs)
	// noSpin: g asked for its lock while more goroutines waited for a
	// core than cores were being woken for them, so it parked at once
	// instead of spinning (sync.Mutex spins only while its P has nothing
	// else to run: runtime_canSpin; a goroutine a waking core will take,
	// such as a new team's worker, sits on another P); only with a
	// goroutine switch cost (Overheads.LockSwitchNs). Its core ran other
	// goroutines meanwhile, and g must be switched in before it can go
	// on: woken by a normal-mode Unlock, before it tries the lock again,
	// which stays free meanwhile (run, resRetry); handed the lock
	// directly, before it uses the lock, which stays unused meanwhile
	// (holdLock). Either charges LockSwitchNs and clears noSpin. A
	// waiter that parked after spinning, its thread asleep, pays
	// LockHandoffNs instead, which covers its switch.
	noSpin bool
	// flying: g's Lock found its lock free with the line elsewhere and
	// waits on its core for the compare-and-swap to land (see flies).
	flying bool
	// debt is the work g has left before its next event when it was
	// made to yield its core (resDebt).
	debt float64
	// gen counts the times g was freed, telling a recycled gor from
	// the goroutine it was (mutex.holder).
	gen uint32
	// pinCore >= 0: g was made ready fresh by the goroutine on that core
	// and sits in its runnext slot while state.coreSeq[pinCore] is still
	// pinSeq (see state.pinned).
	pinCore int32
	pinSeq  uint32
	// fresh: g is a spawned task's goroutine taken from the ready queue
	// and not yet started: start charges its core SpawnRunNs first.
	fresh bool
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
	// waiter is the goroutine waiting until no more than waitAt
	// members run: 0 at the join, fewer than the limit for a spawner
	// waiting for a slot (see stepSec).
	waiter  *gor
	waitAt  int
	spawned int   // spawn: goroutines spawned
	next    int64 // dynamic, guided: next task index
	// fetchedOn is one more than the core of the last charged fetch
	// from the counter (0: none yet), whose cache line a fetch from
	// another core moves (ChunkMigrateNs).
	fetchedOn int32
	// counterFree is when the counter's line, moving to the core of the
	// last fetch that moved it, is there to serve the next fetch.
	counterFree float64
	cur         cursor
	sec         *cnode
}

// newG returns a goroutine to use, a freed one where there is one. An
// emulation that would hold more than s.maxG at once fails with
// emulate.ErrTooLarge.
func (s *state) newG() *gor {
	if n := len(s.free); n > 0 {
		g := s.free[n-1]
		s.free = s.free[:n-1]
		g.fetchEnd = math.Inf(-1)
		return g
	}
	if lim := cmp.Or(s.maxG, MaxGoroutines); len(s.gs) >= lim {
		// The emulation stops at its next step; g serves till then.
		s.fail("%w: more than %d goroutines at once (most of them waiting for a lock or a core)", emulate.ErrTooLarge, lim)
	}
	g := &gor{core: -1, pinCore: -1, id: int32(len(s.gs)), fetchEnd: math.Inf(-1)}
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
	s.pushFresh(1, c, run, tm, from)
	s.readied()
}

// migrates reports whether a fetch from tm's counter on core moves the
// counter's cache line: the last charged fetch was made on another core.
func (tm *team) migrates(core int) bool {
	return tm.fetchedOn != 0 && tm.fetchedOn != int32(core)+1
}

func (s *state) newTeam() *team {
	if n := len(s.teams); n > 0 {
		tm := s.teams[n-1]
		s.teams = s.teams[:n-1]
		return tm
	}
	return &team{}
}
