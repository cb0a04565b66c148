package tree

import "math/bits"

// u128 is an unsigned 128-bit accumulator, so that averaging counters over
// millions of section runs keeps exact sums.
type u128 struct{ hi, lo uint64 }

func (a *u128) addMul(v, m uint64) {
	hi, lo := bits.Mul64(v, m)
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, lo, 0)
	a.hi, _ = bits.Add64(a.hi, hi, carry)
}

func (a *u128) add(b u128) {
	var carry uint64
	a.lo, carry = bits.Add64(a.lo, b.lo, 0)
	a.hi, _ = bits.Add64(a.hi, b.hi, carry)
}

// div returns a/d rounded down, saturating at the largest uint64.
func (a u128) div(d uint64) uint64 {
	if d == 0 {
		return 0
	}
	if a.hi >= d {
		return ^uint64(0)
	}
	q, _ := bits.Div64(a.hi, a.lo, d)
	return q
}

// counterAcc keeps the exact sums of the counters of every section run
// merged into one node; c is their average, which Node.Counters points at.
type counterAcc struct {
	ins, cyc, llc, time u128
	runs                uint64
	c                   Counters
}

func (a *counterAcc) reset() { *a = counterAcc{} }

// addReading adds one reading standing for max(c.Runs, 1) runs.
func (a *counterAcc) addReading(c *Counters) {
	r := uint64(1)
	if c.Runs > 1 {
		r = uint64(c.Runs)
	}
	t := uint64(0)
	if c.TimeNs > 0 {
		t = uint64(c.TimeNs)
	}
	a.ins.addMul(c.Instructions, r)
	a.cyc.addMul(c.Cycles, r)
	a.llc.addMul(c.LLCMisses, r)
	a.time.addMul(t, r)
	a.runs += r
	a.update()
}

// merge adds the sums of b.
func (a *counterAcc) merge(b *counterAcc) {
	a.ins.add(b.ins)
	a.cyc.add(b.cyc)
	a.llc.add(b.llc)
	a.time.add(b.time)
	a.runs += b.runs
	a.update()
}

func (a *counterAcc) update() {
	half := func(x u128) uint64 { // rounded to nearest
		x.add(u128{lo: a.runs / 2})
		return x.div(a.runs)
	}
	a.c = Counters{
		Instructions: half(a.ins),
		Cycles:       half(a.cyc),
		LLCMisses:    half(a.llc),
		TimeNs:       int64(min(half(a.time), 1<<63-1)),
		Runs:         int64(min(a.runs, 1<<63-1)),
	}
}
