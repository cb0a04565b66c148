package ff

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

func (d *ring[T]) popBack() T {
	p := d.at(d.n - 1)
	x := *p
	var zero T
	*p = zero
	d.n--
	return x
}

// take removes and returns the i-th entry from the front, keeping the
// others' order. It moves the entries on i's shorter side, so taking
// from near either end of a long queue stays cheap.
func (d *ring[T]) take(i int) T {
	x := *d.at(i)
	if i < d.n-1-i {
		for j := i; j > 0; j-- {
			*d.at(j) = *d.at(j - 1)
		}
		d.popFront()
		return x
	}
	for j := i; j < d.n-1; j++ {
		*d.at(j) = *d.at(j + 1)
	}
	d.popBack()
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
