package ff

import (
	"math"
	"strconv"

	"github.com/parallel-prophet/prophet/emulate"
)

// StarvationNs is sync.Mutex's starvation threshold: a waiter that has
// waited longer than this (counting every retry) switches the mutex to
// starvation mode, in which Unlock hands the lock directly to the first
// waiter and nobody barges.
const StarvationNs = 1e6

// mutex is one lock id. A lock is free at time x when it has no
// waiters and releaseAt <= x; releaseAt is +Inf while a waiter has been
// handed the lock but has no core yet.
type mutex struct {
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
	// lastCore is the core the lock was last taken on (-1: never): a
	// Lock on another core pays for the cache line moving over
	// (Overheads.LockMigrateNs; see take).
	lastCore int32
	// stolen is set once a Lock from another core came during the
	// current hold (see steal).
	stolen bool
	// flightEnd is when the last compare-and-swap from another core
	// lands (see acquire): the line serves one at a time.
	flightEnd float64
}

// migrates reports whether taking lk on core now moves its cache line
// from another core.
func (lk *mutex) migrates(core int) bool { return lk.lastCore >= 0 && lk.lastCore != int32(core) }

// migrateNs is what taking lk on core costs beyond LockNs (see take):
// LockMigrateNs when its cache line comes from another core, and more
// the more cores wait for it (crowdShare). A Lock on the core that took
// it last pays that share of a move alone: the waiters' checks pull the
// line away from its holder's core too, between its Unlock and its next
// Lock, as they do from anybody's. m counts the waiters as for a take
// from another core, at most threads − 2, so that two threads pay
// nothing here.
func (s *state) migrateNs(lk *mutex, core int) float64 {
	var d float64
	if lk.migrates(core) {
		d = s.ov.LockMigrateNs
	}
	if m := min(lk.waiters.len(), s.t-2); m > 0 {
		d += s.ov.LockMigrateNs * crowdShare(m)
	}
	return d
}

// crowdShare is the share of one more cache-line move that a Lock pays,
// on average, when m goroutines besides the new holder and the old one
// wait for the lock, each on a core of its own: m/(m+2). The waiters'
// checks and compare-and-swaps pull the lock's line to their cores, so
// that the more cores are at the lock, the likelier the line is at
// neither the releaser's nor the new holder's core when the new
// holder's compare-and-swap comes. Waiting goroutines beyond the
// team's other cores hold none, so m counts at most threads − 2; on two
// threads it is always 0.
func crowdShare(m int) float64 { return float64(m) / float64(m+2) }

// hold records g as lk's holder until t.
func (lk *mutex) hold(g *gor, t float64) {
	lk.releaseAt, lk.holder, lk.holderGen, lk.stolen = t, g, g.gen, false
}

// steal charges the holder of lk, held now, for a Lock from another
// core that finds it held while another waiter already spins for it:
// each Lock first tries a CompareAndSwap and each spinner checks the
// lock, and with two or more cores at it besides the holder's, the
// lock's cache line is elsewhere when the holder unlocks, and its
// Unlock must bring it back (LockMigrateNs), once a hold. (With one
// waiter, a hand-off costs about one move, which the next Lock pays;
// see take.) The release and the holder's clock move that much later
// (delayHolder); where the holder is not running ahead on a core,
// nothing is charged.
func (s *state) steal(lk *mutex) {
	d := s.ov.LockMigrateNs
	if lk.stolen || math.IsInf(lk.releaseAt, 1) || lk.releaseAt <= s.now || !s.hasSpinner(lk) ||
		!s.delayHolder(lk, d, "unlock migrate") {
		return
	}
	lk.stolen = true
	lk.releaseAt += d
	if lk.evPending {
		s.pushRelease(lk, lk.releaseAt)
	}
}

// pushRelease queues lk's release event at t.
func (s *state) pushRelease(lk *mutex, t float64) {
	lk.evPending, lk.evAt = true, t
	s.push(event{t: t, kind: evRelease, id: lk.idx})
}

// lock returns the state of the lock of dense index i.
func (s *state) lock(i int32) *mutex { return s.lockList[i] }

// release is an Unlock of lk, which has waiters, at the current time
// (lk.releaseAt). It follows sync.Mutex:
//
//   - A waiter that asked within the spin window (LockSpinNs) is still
//     spinning: it checks the lock every SpinCheckNs from its request,
//     or as its compare-and-swap lands where that is still in flight
//     (spinCheck). Of the spinning waiters, the one whose check comes
//     first (firstChecker) takes the lock then if it is still free
//     (charged LockNs), and until then anybody may take it (barge);
//     with LockHandoffNs = 0 the first waiter takes it at once.
//   - In starvation mode (lk.starving), the lock is handed directly to
//     the first waiter, which runs at once on the unlocker's core at no
//     extra cost, the unlocker yielding it (yieldTo); the mode ends when
//     that waiter is the last one or waited less than StarvationNs.
//   - Otherwise (normal mode, with LockHandoffNs > 0) the Unlock only
//     wakes the first waiter: the lock is free, anybody may take it
//     (barge) meanwhile, and the waiter runs after the time its parked
//     thread takes to wake (lockWake; readyLate), or, one that parked at
//     once, once it is switched in (LockSwitchNs), and tries again
//     (retry); if the lock is taken then, it queues again at the front
//     and parks, and once it has waited longer than StarvationNs in all
//     the mutex starves.
//
// With LockHandoffNs = 0 every hand-off is direct (the ideal FIFO lock).
func (s *state) release(lk *mutex) {
	lk.evPending = false
	if lk.releaseAt > s.now {
		// A goroutine barged in and holds the lock: the Unlock that
		// wakes a waiter is its.
		if !math.IsInf(lk.releaseAt, 1) {
			s.pushRelease(lk, lk.releaseAt)
		}
		return
	}
	i := 0
	if s.ov.LockHandoffNs > 0 && !lk.starving {
		i = max(s.firstChecker(lk), 0)
	}
	w := lk.waiters.take(i)
	waited := s.now - w.reqAt
	w.parked = !s.spinning(w, waited)
	if w.parked && !lk.starving && s.ov.LockHandoffNs > 0 {
		// Normal mode: wake w; the lock stays free.
		s.nHandoff++
		w.resume = resRetry
		d, unlock := s.lockWake(waited)
		if s.wake > 0 {
			s.wakes++
			s.late = true
		}
		if s.readyLate(w, d) {
			s.delayHolder(lk, unlock, "unlock wake")
		}
		return
	}
	if !w.parked && !lk.starving && s.ov.LockHandoffNs > 0 {
		if d := s.spinCheck(waited, w.landNs); d > 0 {
			// w spins: it sees the lock free only at its next check,
			// and until then anybody may take it.
			w.resume = resRetry
			if !s.spinOn(w, d) {
				s.readyLate(w, d)
			}
			return
		}
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

// hasSpinner reports whether one of lk's waiters is spinning for it.
func (s *state) hasSpinner(lk *mutex) bool {
	for k, m := 0, s.spinnerSlots(lk); k < m; k++ {
		w := *lk.waiters.at(s.spinnerSlot(lk, k))
		if s.spinning(w, s.now-w.reqAt) {
			return true
		}
	}
	return false
}

// spinnerSlots returns how many of lk's waiters may spin, which
// spinnerSlot numbers from 0: every one in a short queue, else the t at
// either end, since a spinner keeps its core, so at most one per core
// spins, and it asked either last (the back of the queue) or failed a
// check and was put back first (the front). (Plain loops over these
// slots rather than a callback: a release looks at them all, and with
// a lock every task takes that is the emulation's busiest loop.)
func (s *state) spinnerSlots(lk *mutex) int {
	return min(lk.waiters.len(), 2*s.t)
}

// spinnerSlot returns the queue index of lk's k-th waiter that may spin
// (k < spinnerSlots): the front and back ends in turn in a long queue.
func (s *state) spinnerSlot(lk *mutex, k int) int {
	n := lk.waiters.len()
	if n <= 2*s.t {
		return k
	}
	if k%2 == 1 {
		return n - s.t + k/2
	}
	return k / 2
}

// firstChecker returns the index among lk's waiters of the spinning
// one whose next check of the lock comes first from now (spinCheck), -1
// if none spins. Every spinning waiter checks at steps of its own, and
// the first to look after an Unlock takes the lock, whatever its place
// in the queue (spinnerSlots says which places can hold a spinner).
func (s *state) firstChecker(lk *mutex) int {
	best, bestD := -1, math.Inf(1)
	for k, m := 0, s.spinnerSlots(lk); k < m; k++ {
		i := s.spinnerSlot(lk, k)
		w := *lk.waiters.at(i)
		waited := s.now - w.reqAt
		if !s.spinning(w, waited) {
			continue
		}
		if d := s.spinCheck(waited, w.landNs); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// spinning reports whether waiter w, which asked waited ns ago, is
// still spinning for its lock: it did not park at once (noSpin), and its
// spin window is not past.
func (s *state) spinning(w *gor, waited float64) bool {
	return !w.noSpin && waited <= s.ov.LockSpinNs
}

// spinCheck returns how long after now a spinning waiter that asked
// waited ns ago (within the spin window) next checks the lock, land
// being how long after its request its compare-and-swap lands (see
// gor.landNs). As in sync.Mutex, it checks every SpinCheckNs from its
// request (each check one runtime.procyield of 30 PAUSE instructions,
// 750 ns on the project's AMD VM, 100 ns to 1.5 µs elsewhere), not from
// the Unlock: even a waiter whose lock comes free at once waits a whole
// step, and one that asked just after a check waits nearly two. A
// waiter whose compare-and-swap is still in flight, its lock's line on
// the way from the holder's core, sees the Unlock as it lands instead.
// On the grid; 0 without a spin window.
func (s *state) spinCheck(waited, land float64) float64 {
	step := s.spinStep
	if !(step > 0) {
		return 0
	}
	if waited < land {
		return onGrid(land - waited)
	}
	k := max(math.Ceil(waited/step), 1)
	return max(onGrid(k*step-waited), 0)
}

// spinOn puts w, a waiter spinning for a lock, back on a core (the one
// it left, if idle) until its next check of the lock d from now, when it
// tries the lock again (resRetry): a spinning goroutine keeps its core,
// which no other goroutine can take meanwhile, and its spinning counts as
// busy time. It reports false, changing nothing, when no core is idle.
func (s *state) spinOn(w *gor, d float64) bool {
	if len(s.idle) == 0 {
		return false
	}
	core := s.popIdleFor(w)
	s.onCore(w, core)
	s.span(core, s.now, s.now+d, emulate.SpanOverhead, "spin", nil)
	w.clock += d
	s.push(event{t: w.clock, kind: evG, id: w.id})
	return true
}

// delayHolder charges d to the goroutine that holds lk or whose Unlock
// of it is the event at hand, drawn as the overhead what, and reports
// whether it did: an Unlock that woke a parked waiter and an idle core
// for it (LockWakeNs: in Go that Unlock readies the waiter and wakes an
// idle core's thread for it before it returns, a futex wake, while the
// lock itself is already free; where no core is idle, the waiter only
// joins a run queue, which costs next to nothing, and nothing is
// charged), or one that must bring the lock's line back (see steal).
// The holder ran ahead of the current time only through work that
// meets no other goroutine (it stops at every lock request that comes
// after a pending event), so moving its pending event and its clock d
// later is exact. Nothing is charged when the holder is not on a core
// any more or is the goroutine of the event at hand (the Unlock came at
// the very time it acts again).
func (s *state) delayHolder(lk *mutex, d float64, what string) bool {
	if !(d > 0) {
		return false
	}
	u, i := s.holderEvent(lk)
	if i < 0 {
		return false
	}
	s.span(int(u.core), u.clock, u.clock+d, emulate.SpanOverhead, what, nil)
	s.h[i].t += d
	u.clock += d
	s.h.down(i)
	return true
}

// holderEvent returns lk's holder, when it is still on a core running
// ahead of the current time, and the index of its pending event in the
// heap below the root (the root is the event at hand); i < 0 when there
// is none such.
func (s *state) holderEvent(lk *mutex) (u *gor, i int) {
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
func (s *state) yieldTo(lk *mutex, w *gor) bool {
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

// lockWake returns the latency of waking a lock waiter that waited
// waited ns (more than LockSpinNs) in this run, and what the Unlock that
// wakes it costs the unlocker where it wakes an idle core for it.
// Overheads.HandoffFor(waited) gives the latency's median and the
// Unlock's cost (a waiter that parked only recently, its core dozing, is
// woken sooner and more cheaply than one whose core slept). The
// latency's spread is LockHandoffP90Ns's, or the core wake-up latency's
// where the profile has none (log-normal with WakeP90Ns/WakeP50Ns). The
// run's first hand-off takes the run's wake-up quantile (the median
// where the profile has no wake-up spread), and each next one the
// quantile 1/φ further on, modulo 1 (nextHandoffFactor): in a real run
// every hand-off draws its own latency, and a run that charged one
// latency at every hand-off could lock into a rhythm that real noise
// breaks. Without a measured spread (p90 <= p50), every hand-off takes
// the run's quantile. Over waits of LockSpinNs to
// LockSpinNs+LockSpinRampNs both ramp up linearly from 0, as many
// Unlocks having a thread to wake as waiters slept: there real waiters
// are a mix of ones still spinning and ones already asleep, and the ramp
// keeps predictions continuous in the wait. Rounded to the time grid.
func (s *state) lockWake(waited float64) (d, unlock float64) {
	d, unlock = s.ov.HandoffFor(waited)
	if s.hoSigma > 0 {
		d *= s.nextHandoffFactor()
	} else if s.wake > 0 && s.ov.WakeP50Ns > 0 && !math.IsInf(s.ov.WakeP50Ns, 0) {
		d *= s.wake / s.ov.WakeP50Ns
	}
	share := s.asleep(waited)
	d *= share
	unlock = onGrid(unlock * share)
	if r := onGrid(d); r > 0 {
		return r, unlock
	}
	return d, unlock
}

// asleep is the share of lock waiters that waited waited ns and had
// parked, their thread asleep: 0 within the spin window (a waiter that
// parked at once there ran other goroutines meanwhile), 1 past the spin
// window's ramp, rising linearly from 0 over it (see lockWake); without
// a ramp (LockSpinRampNs ≤ 0) it steps from 0 to 1 at LockSpinNs.
func (s *state) asleep(waited float64) float64 {
	spin, ramp := s.ov.LockSpinNs, max(s.ov.LockSpinRampNs, 0)
	switch {
	case waited >= spin+ramp:
		return 1
	case ramp == 0:
		return 0
	}
	return max(waited-spin, 0) / ramp
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
func (s *state) barge(lk *mutex) bool {
	return s.ov.LockHandoffNs > 0 && !lk.starving
}

// parksAtOnce reports whether a goroutine asking for a taken lock now
// parks at once instead of spinning (gor.noSpin): with a switch cost
// (LockSwitchNs), when more goroutines wait for a core than cores are
// being woken for them.
func (s *state) parksAtOnce() bool {
	return s.ov.LockSwitchNs > 0 && s.ready.len() > s.waking
}

// retry runs when g, woken by a normal-mode Unlock, gets its core, or
// when g, spinning, checks the lock: it takes the lock if it is free,
// else queues again at the front (Go queues a waiter that waited before
// LIFO). A woken waiter starts a new spin window; a spinner keeps its
// request time, as sync.Mutex counts a Lock's spins from its start and
// does not start them over when another goroutine took the lock first,
// so it parks once the window is past. It reports whether g holds the
// lock.
func (s *state) retry(g *gor) bool {
	lk := g.lock
	front := !g.flying
	g.flying = false
	if lk.releaseAt <= s.now {
		g.lock = nil
		// A compare-and-swap that lands now has waited out the line's
		// move since the request (take charges what is left of it).
		paid := 0.0
		if s.now-g.reqAt <= g.landNs {
			paid = g.landNs
		}
		s.holdLock(g, lk, paid)
		return true
	}
	if g.parked {
		g.reqAt, g.landNs = s.now, 0
	}
	if s.now-g.waitStart > StarvationNs {
		lk.starving = true
	}
	// A Lock whose compare-and-swap landed on a taken lock queues as a
	// new waiter, at the back.
	s.queue(g, lk, front)
	return false
}

// queue makes g, whose Lock found lk taken, wait for it: the Lock may
// take the lock's line from its holder (steal); g joins lk's waiters at
// the front (a waiter that waited before, which Go queues LIFO) or the
// back, parks at once where other goroutines wait for a core
// (parksAtOnce), and leaves its core; lk's release gets an event if it
// has none.
func (s *state) queue(g *gor, lk *mutex, front bool) {
	s.steal(lk)
	if front {
		lk.waiters.pushFront(g)
	} else {
		lk.waiters.pushBack(g)
	}
	g.resume = resLock
	g.noSpin = s.parksAtOnce()
	if !lk.evPending && !math.IsInf(lk.releaseAt, 1) {
		s.pushRelease(lk, max(lk.releaseAt, s.now))
	}
	s.leave(g, emulate.SpanLockWait)
}

// switchIn charges g, which parked at once for its lock (gor.noSpin)
// while its core ran other goroutines, the switch that brings it back
// (LockSwitchNs), and clears noSpin.
func (s *state) switchIn(g *gor) {
	g.noSpin = false
	s.overhead(g, s.ov.LockSwitchNs, "switch", nil)
}

// holdLock runs g's pending L (g.lockL) now that g holds lk: the switch
// of a waiter that parked at once and was handed the lock directly
// (LockSwitchNs), the lock's own cost (less paid, the line's move g
// waited out as its compare-and-swap landed; see take), the critical
// section, and the release time, with a release event when others wait
// for lk.
func (s *state) holdLock(g *gor, lk *mutex, paid float64) {
	if g.noSpin {
		// The lock was handed to g (a starving mutex, or the ideal
		// lock), but g parked at once: until it is switched in, nobody
		// uses the lock. (g queued last for this lock, and queues again
		// before it is given another.) A g woken in normal mode was
		// switched in before it took the lock (run, resRetry).
		s.switchIn(g)
	}
	s.take(g, lk, g.lockL, paid, g.lockN, nil)
}

// take gives lk to g at g's clock for a critical section of length l
// (burdened): the lock's cost (state.lockNs, and LockMigrateNs when the
// lock was last taken on another core, less paid, what g waited out for
// the line as its compare-and-swap landed), then the hold, stretched by the
// machine's noise; lk is released when the hold ends, with a release
// event when others wait for it. Every lock a goroutine takes step by
// step is charged here; the closed forms (batch.go, lockstep.go) add
// the same charges up for many holds at once.
func (s *state) take(g *gor, lk *mutex, l, paid float64, name string, sec *cnode) {
	mig := max(s.migrateNs(lk, g.core)-paid, 0)
	lk.lastCore = int32(g.core)
	if s.spans != nil {
		s.overhead(g, s.lockNs, "lock", sec)
		s.overhead(g, mig, "lock migrate", sec)
		st := g.clock
		g.clock += s.noisy(l)
		s.span(g.core, st, g.clock, emulate.SpanLock, name, sec)
	} else {
		// The same without a timeline, in the walk's inner loop.
		g.clock += s.lockNs
		if mig > 0 {
			g.clock += mig
		}
		g.clock += s.noisy(l)
	}
	lk.hold(g, g.clock)
	if lk.waiters.len() > 0 && !lk.evPending {
		s.pushRelease(lk, lk.releaseAt)
	}
}

// flightNs is how long a Lock from another core is in flight, its
// compare-and-swap waiting for the lock's line (see acquire): the move
// LockMigrateNs, which brings the lock's line and, fetched beside it,
// the line of the data the critical section writes. For an indexed
// critical section (tree.Node.Indexed) the data's address is known only
// once the lock is taken: half the move, the data's, comes inside the
// hold (take charges what the flight did not). Each hold is charged as
// what its own L node is, so one lock can guard indexed and plain
// critical sections alike.
func (s *state) flightNs(indexed bool) float64 {
	if indexed {
		return s.indexedFlight
	}
	return s.ov.LockMigrateNs
}

// acquire runs, for g at the current time (g.clock == s.now), a hold of
// l ns (burdened) on lock id, an indexed critical section if indexed:
// at once when the lock is free and its line on g's core (or the lock
// ideal, or its move free), and returns true; else it returns false, g
// either in flight (flies: g.resume is resRetry, and g yields on its
// core until its compare-and-swap lands) or queued and blocked. task and
// c, the hold's L node c of task, name it in a timeline (they may be nil
// without one).
func (s *state) acquire(g *gor, id int32, indexed bool, l float64, task, c, sec *cnode) bool {
	lk := s.lock(id)
	s.nLock++
	if lk.evPending && lk.evAt <= s.now && lk.waiters.len() > 0 && s.barge(lk) {
		// The Unlock at lk.evAt, at this very time, wakes its waiter
		// before g can take the lock (the unlocker does it inside
		// Unlock); its pending event is then stale.
		s.release(lk)
	}
	free := lk.releaseAt <= s.now && (lk.waiters.len() == 0 || s.barge(lk))
	if free && !s.flies(lk, g) {
		name := ""
		if s.spans != nil {
			name = s.lockName(task, c)
		}
		s.take(g, lk, l, 0, name, sec)
		return true
	}
	g.lock, g.lockL, g.reqAt, g.waitStart = lk, l, s.now, s.now
	g.landNs = 0
	if lk.migrates(g.core) {
		// The line comes over once the compare-and-swaps in flight
		// before this one have had it: one move after the later of now
		// and the last one's landing.
		land := max(s.now, lk.flightEnd) + onGrid(s.flightNs(indexed))
		g.landNs, lk.flightEnd = land-s.now, land
	}
	if s.spans != nil {
		g.lockN = s.lockName(task, c)
	}
	if free {
		// In flight: g's compare-and-swap waits on its core for the
		// lock's line, and g tries the lock as it lands (retry).
		g.resume, g.noSpin, g.parked, g.flying = resRetry, false, false, true
		s.span(g.core, s.now, s.now+g.landNs, emulate.SpanOverhead, "lock migrate", sec)
		g.clock += g.landNs
		return false
	}
	s.queue(g, lk, false)
	return false
}

// flies reports whether g's Lock of lk, free now, is in flight first:
// the lock's cache line is on another core (it was taken there last),
// and sync.Mutex's Lock, a compare-and-swap, waits for the line to come
// over (LockMigrateNs), the lock free for anybody meanwhile; a Lock on
// the core that has the line, the last holder's, can take it first.
// The ideal lock (LockHandoffNs = 0) and a starving mutex, which hands
// the lock over directly, take it at once, paying the move in the hold.
func (s *state) flies(lk *mutex, g *gor) bool {
	return s.ov.LockMigrateNs > 0 && s.ov.LockHandoffNs > 0 && !lk.starving && lk.migrates(g.core)
}

// lockName names L node c of task for the timeline.
func (s *state) lockName(task, c *cnode) string {
	return s.p.name(task) + " lock " + strconv.Itoa(s.p.lockIDs[c.ref()])
}
