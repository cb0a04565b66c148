package ff

import (
	"container/heap"
	"fmt"
	"math"
	"strconv"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// The engine is a discrete-event emulation of goroutines on t cores.
//
// Every logical goroutine runs a program: a stack of frames walking the
// tree. A goroutine on a core runs its U nodes locally (nothing else can
// see them) and stops only at an interaction point: a lock request, a
// fork, a chunk fetch, a spawn, a join, its own end. Interaction points
// are processed in global time order through a priority heap
// (container/heap) of events; ties go to the event queued first, and the
// goroutine being processed keeps going while its clock is still the
// earliest (so it needs no heap operation at all in that case).

type evKind uint8

const (
	evG       evKind = iota // goroutine g goes on at t
	evWake                  // a woken core becomes available at t
	evRelease               // lock lk is released at t and has waiters
)

// event holds no pointers (goroutines and locks are indices into the
// state's tables), so the heap is not scanned by the garbage collector
// and moving events needs no write barriers.
type event struct {
	t    float64
	seq  uint64
	kind evKind
	core int32
	id   int32 // goroutine (evG) or lock (evRelease) index
}

// evHeap is a min-heap of events by (t, seq). It implements
// heap.Interface; the engine pushes and pops with heap.Fix on the slice
// directly, so events are never boxed.
type evHeap []event

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}
func (h evHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *evHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

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
	node  *tree.Node
	info  *secInfo
	team  *team
	sec   string // innermost section name, for spans
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
	parked bool    // g waited for the lock longer than LockSpinNs
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
	name    string
}

// LockSpinNs is how long a goroutine waiting for a lock spins before it
// parks: sync.Mutex spins a few rounds (about a microsecond) when the
// lock is held by a running goroutine. A waiter handed the lock within
// LockSpinNs of asking is charged LockNs only; one that waited longer
// had parked and is charged LockHandoffNs too.
const LockSpinNs = 1000

// lockState is one lock id. A lock is free at time x when it has no
// waiters and releaseAt <= x; releaseAt is +Inf while a waiter has been
// handed the lock but has no core yet.
type lockState struct {
	idx       int32
	id        int
	releaseAt float64
	waiters   deque
	evPending bool
}

// deque is a ring buffer of goroutines.
type deque struct {
	buf  []*gor
	head int
	n    int
}

func (d *deque) len() int { return d.n }

func (d *deque) grow() {
	nb := make([]*gor, max(8, 2*len(d.buf)))
	for i := 0; i < d.n; i++ {
		nb[i] = d.buf[(d.head+i)%len(d.buf)]
	}
	d.buf, d.head = nb, 0
}

func (d *deque) pushBack(g *gor) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.buf[(d.head+d.n)%len(d.buf)] = g
	d.n++
}

func (d *deque) pushFront(g *gor) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.head = (d.head - 1 + len(d.buf)) % len(d.buf)
	d.buf[d.head] = g
	d.n++
}

func (d *deque) popFront() *gor {
	g := d.buf[d.head]
	d.buf[d.head] = nil
	d.head = (d.head + 1) % len(d.buf)
	d.n--
	return g
}

// state is one emulation of one section run.
type state struct {
	t      int
	sched  par.Schedule
	burden float64
	ov     machine.Overheads
	wake   float64 // wake-up latency of an idle core in this run

	h     evHeap
	seq   uint64
	now   float64
	ready deque
	idle  []int // idle cores (a stack)

	waking int // core wake-ups in flight
	wakes  int // core wake-ups with latency > 0 so far

	locks    map[int]*lockState
	lockList []*lockState
	lastLock *lockState
	gs       []*gor // every goroutine, by id
	infos    map[*tree.Node]*secInfo
	free     []*gor
	teams    []*team // recycled teams

	end       float64
	busy      float64
	coreSince []float64 // when the core's goroutine went on it

	// Timeline (spans == nil: off).
	spans     *[]emulate.Span
	maxSpans  int
	offset    float64
	idleSince []float64
	idleKind  []string

	// Counters of charged overheads, for tests.
	nFork, nJoin, nChunk, nSpawn, nLock, nHandoff int

	err error
}

// reset prepares s for a new emulation, keeping what it allocated
// before (goroutines, frames, the heap, the tables); the section-info
// cache is kept too (clear it between calls).
func (s *state) reset(threads int, sched par.Schedule, burden float64, ov machine.Overheads, wake float64) {
	gs, free, h, idle, lockList := s.gs, s.free[:0], s.h[:0], s.idle[:0], s.lockList[:0]
	for _, g := range gs {
		g.frames = g.frames[:0]
		g.team, g.lock, g.resume, g.core = nil, nil, resNone, -1
		free = append(free, g)
	}
	locks, infos, coreSince := s.locks, s.infos, s.coreSince
	if locks == nil {
		locks = map[int]*lockState{}
	}
	clear(locks)
	if infos == nil {
		infos = map[*tree.Node]*secInfo{}
	}
	if cap(coreSince) < threads {
		coreSince = make([]float64, threads)
	}
	coreSince = coreSince[:threads]
	ready := s.ready
	for ready.len() > 0 {
		ready.popFront()
	}
	*s = state{
		t: threads, sched: sched, burden: burden, ov: ov, wake: wake,
		h: h, idle: idle, ready: ready, locks: locks, lockList: lockList,
		infos: infos, gs: gs, free: free, coreSince: coreSince, teams: s.teams,
	}
}

// span appends a timeline span when recording.
func (s *state) span(core int, start, end float64, kind, name, sec string) {
	if s.spans == nil || end <= start {
		return
	}
	if s.maxSpans > 0 && len(*s.spans) >= s.maxSpans {
		return
	}
	*s.spans = append(*s.spans, emulate.Span{
		Thread: core, StartNs: s.offset + start, EndNs: s.offset + end,
		Kind: kind, Name: name, Section: sec,
	})
}

func (s *state) push(e event) {
	s.seq++
	e.seq = s.seq
	s.h = append(s.h, e)
	heap.Fix(&s.h, len(s.h)-1)
}

func (s *state) pop0() {
	n := len(s.h) - 1
	s.h[0] = s.h[n]
	s.h[n] = event{}
	s.h = s.h[:n]
	if n > 0 {
		heap.Fix(&s.h, 0)
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

func (s *state) info(n *tree.Node, own *secInfo) *secInfo {
	if denseInfo(n, own) {
		return own
	}
	if in, ok := s.infos[n]; ok {
		return in
	}
	in, err := buildInfo(n)
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return nil
	}
	s.infos[n] = in
	return in
}

func (s *state) lock(id int) *lockState {
	if s.lastLock != nil && s.lastLock.id == id {
		return s.lastLock
	}
	lk, ok := s.locks[id]
	if !ok {
		lk = &lockState{id: id, idx: int32(len(s.lockList)), releaseAt: math.Inf(-1)}
		s.locks[id] = lk
		s.lockList = append(s.lockList, lk)
	}
	s.lastLock = lk
	return lk
}

func (s *state) newG() *gor {
	if n := len(s.free); n > 0 {
		g := s.free[n-1]
		s.free = s.free[:n-1]
		return g
	}
	g := &gor{core: -1, id: int32(len(s.gs))}
	s.gs = append(s.gs, g)
	return g
}

func (s *state) freeG(g *gor) {
	g.frames = g.frames[:0]
	g.team, g.lock, g.resume, g.core = nil, nil, resNone, -1
	s.free = append(s.free, g)
}

// start puts g on core at the current time.
func (s *state) start(g *gor, core int) {
	if s.spans != nil && s.now > s.idleSince[core] {
		s.span(core, s.idleSince[core], s.now, s.idleKind[core], "", "")
	}
	g.core = core
	g.clock = s.now
	s.coreSince[core] = s.now
	s.push(event{t: s.now, kind: evG, id: g.id})
}

// leave takes g off its core at the current time; the core runs the next
// ready goroutine or goes idle. why is the idle span kind for the core.
func (s *state) leave(g *gor, why string) {
	core := g.core
	g.core, g.last = -1, core
	s.busy += s.now - s.coreSince[core]
	s.freeCore(core, why)
}

func (s *state) freeCore(core int, why string) {
	if s.spans != nil {
		s.idleSince[core], s.idleKind[core] = s.now, why
	}
	if s.ready.len() > 0 {
		s.start(s.ready.popFront(), core)
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

// makeReady makes g runnable at the current time. A fresh goroutine (new
// from a fork or a spawn) queues at the back, and when a core is idle and
// no wake-up already in flight covers it, an idle core is woken: it is
// available after the wake-up latency, unless a busy core frees up first
// and takes the goroutine. A goroutine resumed from a join or handed a
// lock goes to the front of the queue and takes an idle core at once (its
// own cost is JoinNs or LockHandoffNs).
func (s *state) makeReady(g *gor, fresh bool) {
	if !fresh {
		if len(s.idle) > 0 {
			// Prefer the core g left, if it is still idle.
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
			s.start(g, c)
			return
		}
		s.ready.pushFront(g)
		return
	}
	s.ready.pushBack(g)
	if len(s.idle) == 0 || s.ready.len() <= s.waking {
		return
	}
	core := s.popIdle()
	if s.wake <= 0 {
		s.start(s.ready.popFront(), core)
		return
	}
	s.waking++
	s.wakes++
	if s.spans != nil {
		if s.now > s.idleSince[core] {
			s.span(core, s.idleSince[core], s.now, s.idleKind[core], "", "")
		}
		s.span(core, s.now, s.now+s.wake, emulate.SpanOverhead, "wake", "")
		s.idleSince[core], s.idleKind[core] = s.now+s.wake, emulate.SpanIdle
	}
	s.push(event{t: s.now + s.wake, kind: evWake, core: int32(core)})
}

func (s *state) wakeCore(core int) {
	s.waking--
	if s.ready.len() > 0 {
		s.start(s.ready.popFront(), core)
		return
	}
	s.idle = append(s.idle, core)
}

// release hands lk to its first waiter.
func (s *state) release(lk *lockState) {
	lk.evPending = false
	w := lk.waiters.popFront()
	lk.releaseAt = math.Inf(1)
	w.parked = s.now-w.reqAt > LockSpinNs
	s.makeReady(w, false)
}

// exit ends g at the current time.
func (s *state) exit(g *gor) {
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

// spawnG makes a fresh goroutine running frame f as member of tm.
func (s *state) spawnG(f frame, tm *team) {
	ng := s.newG()
	ng.frames = append(ng.frames, f)
	ng.team = tm
	tm.pending++
	s.makeReady(ng, true)
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
		s.overhead(g, s.ov.JoinNs, "join", "")
	case resLock:
		g.resume = resNone
		lk := g.lock
		g.lock = nil
		if g.parked {
			s.nHandoff++
			s.overhead(g, s.ov.LockHandoffNs+s.ov.LockNs, "handoff", "")
		} else {
			s.overhead(g, s.ov.LockNs, "lock", "")
		}
		st := g.clock
		g.clock += g.lockL
		s.span(g.core, st, g.clock, emulate.SpanLock, g.lockN, "")
		lk.releaseAt = g.clock
		if lk.waiters.len() > 0 && !lk.evPending {
			lk.evPending = true
			s.push(event{t: lk.releaseAt, kind: evRelease, id: lk.idx})
		}
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
			if f.i >= len(f.node.Children) {
				g.frames = g.frames[:top]
				continue
			}
			c := f.node.Children[f.i]
			if c == nil {
				s.fail("task %q: nil child", f.node.Name)
				continue
			}
			switch c.Kind {
			case tree.KindU:
				if c.Len < 0 {
					s.fail("task %q: negative length %d", f.node.Name, c.Len)
					continue
				}
				d := float64(c.Len) * float64(c.Reps()-f.rep) * s.burden
				s.span(g.core, g.clock, g.clock+d, emulate.SpanTask, f.node.Name, f.sec)
				g.clock += d
				f.i++
				f.rep = 0
			case tree.KindL:
				if c.Len < 0 {
					s.fail("task %q: negative length %d", f.node.Name, c.Len)
					continue
				}
				if !s.at(g) {
					return g.clock, true
				}
				f.rep++
				if f.rep >= c.Reps() {
					f.i++
					f.rep = 0
				}
				if !s.acquire(g, c, f.node.Name, f.sec) {
					return 0, false
				}
			case tree.KindSec:
				f.rep++
				if f.rep >= c.Reps() {
					f.i++
					f.rep = 0
				}
				g.frames = append(g.frames, frame{kind: fSec, node: c, sec: c.Name})
			default:
				s.fail("task %q holds a %s node", f.node.Name, c.Kind)
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

func (s *state) overhead(g *gor, d float64, name, sec string) {
	if d <= 0 {
		return
	}
	s.span(g.core, g.clock, g.clock+d, emulate.SpanOverhead, name, sec)
	g.clock += d
}

// acquire runs L node c for g at the current time (g.clock == s.now):
// at once when the lock is free, else g queues and blocks (returns false).
func (s *state) acquire(g *gor, c *tree.Node, task, sec string) bool {
	lk := s.lock(c.Lock)
	l := float64(c.Len) * s.burden
	s.nLock++
	if lk.waiters.len() == 0 && lk.releaseAt <= s.now {
		s.overhead(g, s.ov.LockNs, "lock", sec)
		st := g.clock
		g.clock += l
		lk.releaseAt = g.clock
		if s.spans != nil {
			s.span(g.core, st, g.clock, emulate.SpanLock, lockName(task, c.Lock), sec)
		}
		return true
	}
	lk.waiters.pushBack(g)
	g.resume, g.lock, g.lockL, g.reqAt = resLock, lk, l, s.now
	if s.spans != nil {
		g.lockN = lockName(task, c.Lock)
	}
	if !lk.evPending && !math.IsInf(lk.releaseAt, 1) {
		lk.evPending = true
		s.push(event{t: lk.releaseAt, kind: evRelease, id: lk.idx})
	}
	s.leave(g, emulate.SpanLockWait)
	return false
}

func lockName(task string, id int) string {
	return task + " lock " + strconv.Itoa(id)
}

// serialU runs d ns of a section's own computation on g.
func (s *state) serialU(g *gor, d float64, sec string) {
	d *= s.burden
	if d <= 0 {
		return
	}
	s.span(g.core, g.clock, g.clock+d, emulate.SpanSerial, sec, sec)
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
		tm.name = f.node.Name
		tm.info = s.info(f.node, &tm.own)
		if tm.info == nil {
			return stBlock
		}
		f.info, f.team = tm.info, tm
		if s.sched.Policy == par.Spawn {
			f.phase = phSpawn
			return stCont
		}
		s.serialU(g, f.info.leadU, f.node.Name)
		f.phase = phFork
		return stCont
	case phFork:
		info := f.info
		k := int(min(int64(s.t), info.n))
		if k > 1 {
			if !f.charged {
				f.charged = true
				s.nFork++
				s.overhead(g, s.ov.ForkNs, "fork", f.node.Name)
			}
			if !s.at(g) {
				return stYield
			}
			f.charged = false
		}
		tm := f.team
		tm.k = k
		for w := 1; w < k; w++ {
			s.spawnG(s.workerFrame(tm, w), tm)
		}
		s.serialU(g, info.midU, f.node.Name)
		f.phase = phJoin
		if k > 0 {
			g.frames = append(g.frames, s.workerFrame(tm, 0))
		}
		return stCont
	case phJoin:
		tm := f.team
		if f.node.Nowait || tm.k <= 1 && tm.spawned == 0 {
			f.phase = phDone
			return stCont
		}
		if !s.at(g) {
			return stYield
		}
		s.nJoin++
		f.phase = phDone
		if tm.pending == 0 {
			s.overhead(g, s.ov.JoinNs, "join", f.node.Name)
			return stCont
		}
		tm.waiter = g
		g.resume = resJoin
		s.leave(g, emulate.SpanIdle)
		return stBlock
	case phDone:
		if tm := f.team; tm != nil && !f.node.Nowait {
			// Every member has ended: the team can be reused.
			f.team, f.info = nil, nil
			*tm = team{}
			s.teams = append(s.teams, tm)
		}
		g.frames = g.frames[:top]
		return stCont
	case phSpawn:
		ch := f.node.Children
		if f.i >= len(ch) {
			f.phase = phJoin
			return stCont
		}
		c := ch[f.i]
		switch c.Kind {
		case tree.KindU:
			s.serialU(g, float64(c.Len)*float64(c.Reps()-f.rep), f.node.Name)
			f.i++
			f.rep = 0
		case tree.KindTask:
			if !f.charged {
				f.charged = true
				s.nSpawn++
				s.overhead(g, s.ov.SpawnNs, "spawn", f.node.Name)
			}
			if !s.at(g) {
				return stYield
			}
			f.charged = false
			tm := f.team
			tm.spawned++
			f.rep++
			if f.rep >= c.Reps() {
				f.i++
				f.rep = 0
			}
			// f may move when spawnG grows nothing of g, but keep
			// no pointer use after this point.
			s.spawnG(frame{kind: fTask, node: c, sec: tm.name}, tm)
		default:
			s.fail("section %q holds a %s node", f.node.Name, c.Kind)
			return stBlock
		}
		return stCont
	}
	return stCont
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
	f := frame{kind: fWorker, team: tm, info: tm.info, w: w, sec: tm.name}
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
				f.cur = info.seek(lo)
				f.nextLo += int64(f.team.k) * c
			}
		case par.Dynamic, par.Guided:
			tm := f.team
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
		node := info.node.Children[f.cur.run]
		f.left--
		f.cur.run++
		g.frames = append(g.frames, frame{kind: fTask, node: node, sec: f.sec})
		return stCont
	}
	r := &info.runs[f.cur.run]
	if r.pure {
		m := min(f.left, r.count-f.cur.off)
		d := float64(m) * r.work * s.burden
		if s.spans != nil {
			name := r.node.Name
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
	f.left--
	node := r.node
	info.advance(&f.cur, 1)
	g.frames = append(g.frames, frame{kind: fTask, node: node, sec: f.sec})
	return stCont
}
