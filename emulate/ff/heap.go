package ff

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
