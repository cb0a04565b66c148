package ff

import "math"

// Events: what the engine processes in global time order.

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

// evHeap is a min-heap of events by (t, seq).
type evHeap []event

// push queues e after every event queued before it at the same time.
func (s *state) push(e event) {
	s.seq++
	e.seq = s.seq
	s.h = append(s.h, e)
	s.h.up(len(s.h) - 1)
}

// pop0 removes the root event.
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

// The event heap is a binary min-heap of events ordered by (t, seq), kept
// in a plain slice. It is written out here rather than driven through
// container/heap because it is the emulator's innermost loop: heap.Fix
// calls Less and Swap through an interface at every level, which costs
// more than the comparisons themselves. Since seq is unique, (t, seq) is a
// total order and the events come out in the same order as with any
// other correct priority queue.

// before reports whether event a comes before event b.
func before(a, b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// up moves event i towards the root until its parent comes before it.
func (h evHeap) up(i int) {
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !before(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// down moves event i towards the leaves until it comes before its
// children.
func (h evHeap) down(i int) {
	n := len(h)
	e := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && before(&h[r], &h[l]) {
			c = r
		}
		if !before(&h[c], &e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}

// heap0Fix restores the heap after the root event's time was moved later.
func heap0Fix(s *state) { s.h.down(0) }
