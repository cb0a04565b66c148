package ff

import (
	"math"

	"github.com/parallel-prophet/prophet/emulate"
)

// readyEntry is an entry of the ready queue: a goroutine g, or, with g
// nil, n fresh goroutines alike (spawned tasks of one run, in one go by
// spawnRun or one by one), each to run one task node of run as a member
// of team.
// A fresh entry holds no goroutine: popReady makes one when a core takes
// it, so a spawn of millions of tasks queues an entry per run of them
// instead of a goroutine each.
type readyEntry struct {
	g    *gor
	node *cnode
	run  *taskRun
	team *team
	n    int64
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
	// pure counts the entries that are fresh goroutines of a pure task
	// (of any team), breaks the neighbouring entries of different
	// teams, and pureWork is the least task work (unburdened) of the
	// pure entries queued since the queue was last empty: a lower bound
	// of the queued ones'. spawnAhead reads them (allPure) instead of
	// going through the queue, which a spawner that outruns the cores
	// fills with an entry per run of the whole loop.
	pure, breaks int
	pureWork     float64
}

// isPure reports whether e is a fresh entry of goroutines of a pure
// task, of any team.
func isPure(e *readyEntry) bool { return e.g == nil && e.run != nil && e.run.pure }

// added accounts for the entry just queued at the front (front) or the
// back (see pure).
func (q *readyQueue) added(front bool) {
	n := q.entries.len()
	e, nb := q.at(n-1), n-2 // the entry and its neighbour
	if front {
		e, nb = q.at(0), 1
	}
	if n == 1 {
		q.pureWork = math.Inf(1)
	} else if q.at(nb).team != e.team {
		q.breaks++
	}
	if isPure(e) {
		q.pure++
		q.pureWork = min(q.pureWork, e.run.work)
	}
}

// allPure reports whether every queued entry is a fresh goroutine of a
// pure task of tm (freshPure), and returns a lower bound of their
// tasks' work.
func (q *readyQueue) allPure(tm *team) (bool, float64) {
	n := q.entries.len()
	return n > 0 && q.pure == n && q.breaks == 0 && q.at(0).team == tm, q.pureWork
}

// len returns the number of goroutines queued.
func (q *readyQueue) len() int { return q.total }

// at returns the i-th entry from the front.
func (q *readyQueue) at(i int) *readyEntry { return q.entries.at(i) }

// push queues entry e at the front (front) or the back, counting its
// goroutines and its part in the account of pure entries (added).
func (q *readyQueue) push(e readyEntry, front bool) {
	if front {
		q.entries.pushFront(e)
	} else {
		q.entries.pushBack(e)
	}
	q.total += int(e.count())
	q.added(front)
}

// pushBack queues g.
func (q *readyQueue) pushBack(g *gor) { q.push(readyEntry{g: g}, false) }

// pushFront queues g at the front.
func (q *readyQueue) pushFront(g *gor) { q.push(readyEntry{g: g}, true) }

// dropFront removes the front entry, which stood for n goroutines.
func (q *readyQueue) dropFront(n int64) {
	if isPure(q.at(0)) {
		q.pure--
	}
	if q.entries.len() > 1 && q.at(0).team != q.at(1).team {
		q.breaks--
	}
	q.entries.popFront()
	q.total -= int(n)
}

// dropFresh removes n goroutines from the front of the queue, all of
// them in fresh entries.
func (q *readyQueue) dropFresh(n int64) {
	for n > 0 {
		e := q.at(0)
		b := e.n
		if b > n {
			e.n -= n
			q.total -= int(n)
			return
		}
		q.dropFront(b)
		n -= b
	}
}

// freshPure reports whether e is a fresh entry of goroutines of a pure
// task of tm.
func freshPure(e *readyEntry, tm *team) bool { return isPure(e) && e.team == tm }

// clear empties the queue.
func (q *readyQueue) clear() {
	q.entries.clear()
	q.total = 0
	q.pure, q.breaks = 0, 0
}

// pushFresh queues n fresh goroutines of run r's task (spawnRun's batch,
// or spawnTask's single task, whose node is r's or, without a run,
// node), members of tm, made ready by the goroutine on core from (see
// pin). The task's section is tm's.
//
// Goroutines of one run's task are alike, so they join the last entry
// when it is a fresh entry of the same run and team: the entry then
// stands for all of them, in their order, with the newest one's runnext
// slot. That is all the queue needs of them: a popped goroutine starts
// at once, which clears its slot, and a slot matters only while its
// goroutine is the only one queued (see pinned and wakeCore), which in a
// FIFO is the newest. A spawner that outruns the cores thus queues one
// entry per run, not one per task.
func (s *state) pushFresh(n int64, node *cnode, r *taskRun, tm *team, from int) {
	q := &s.ready
	if last := q.entries.len() - 1; r != nil && last >= 0 {
		if b := q.at(last); b.g == nil && b.team == tm && b.run == r {
			b.n += n
			q.total += int(n)
			b.pinCore, b.pinSeq = s.pin(from)
			return
		}
	}
	e := readyEntry{node: node, run: r, team: tm, n: n}
	e.pinCore, e.pinSeq = s.pin(from)
	q.push(e, false)
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
	ng.fresh = true
	if e.n <= 1 {
		ng.pinCore, ng.pinSeq = e.pinCore, e.pinSeq
		q.dropFront(1)
		return ng
	}
	e.n--
	q.total--
	return ng
}

// start puts g on core at the current time.
func (s *state) start(g *gor, core int) {
	s.onCore(g, core)
	if g.fresh {
		// A spawned goroutine: its core takes it from the spawner's
		// queue and switches to it (and pays for its exit) first.
		g.fresh = false
		s.overhead(g, s.ov.SpawnRunNs, "goroutine start", g.team.sec)
	}
	if s.rootFree {
		// The root event is done with: g's event takes its place,
		// saving a push and a pop.
		s.rootFree = false
		s.seq++
		s.h[0] = event{t: g.clock, seq: s.seq, kind: evG, id: g.id}
		s.h.down(0)
		return
	}
	s.push(event{t: g.clock, kind: evG, id: g.id})
}

// onCore gives core to g at the current time, closing the core's idle
// span and counting its busy time from now, without queuing g's event.
func (s *state) onCore(g *gor, core int) {
	if s.spans != nil && s.now > s.idleSince[core] {
		s.span(core, s.idleSince[core], s.now, s.idleKind[core], "", nil)
	}
	g.core, g.pinCore = core, -1
	g.clock = s.now
	s.coreSince[core] = s.now
	s.coreSeq[core]++
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
// makeReady), a wake-up latency on.
func (s *state) readied() { s.wakeIdle(s.wake) }

// wakeIdle wakes an idle core d from now for the fresh goroutines
// queued, when one is idle and no wake-up in flight covers them (d <= 0:
// the core takes one at once). With a wake step (chainNs), only one such
// wake-up is in flight at a time, as Go wakes one idle P's thread (a
// spinning M) only where none spins: the woken core, once it takes a
// goroutine, wakes the next idle core for the ones still queued, chainNs
// later (chainOn), so a team's workers start one after another.
func (s *state) wakeIdle(d float64) {
	if len(s.idle) == 0 || s.ready.len() <= s.waking || s.chainCore >= 0 {
		return
	}
	core := s.popIdle()
	if d <= 0 {
		s.start(s.popReady(), core)
		return
	}
	s.wakes++
	if s.chainNs > 0 {
		s.chainCore = int32(core)
	}
	s.wakeAt(core, s.now+d, "wake")
}

// chainOn continues the chain of wake-ups (see wakeIdle) from core, just
// woken for a new goroutine and given one.
func (s *state) chainOn(core int) {
	if s.chainCore == int32(core) {
		s.chainCore = -1
		s.wakeIdle(s.chainNs)
	}
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
		s.chainOn(core)
		return
	}
	if s.chainCore == int32(core) {
		s.chainCore = -1
	}
	s.idle = append(s.idle, core)
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
		if tm.waiter != nil && tm.pending <= tm.waitAt {
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
