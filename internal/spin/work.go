package spin

import (
	"math"

	"github.com/parallel-prophet/prophet/internal/clock"
)

// Work computes for about ns nanoseconds on seed and returns the result:
// rounds of a multiply-xorshift mix, each on the one before, as many as
// take ns at the rate measured when the package was initialized.
//
// Unlike For it counts work, not time, and it stands for a program's
// computation where For cannot. Its first round needs seed, so when seed
// is a dynamic loop's fetched index the fetch's wait adds to its time,
// where For (and even ForOrdered, whose ordering hides part of the wait
// behind itself) counts the wait as its own. And its last rounds keep
// the core computing up to whatever comes next, such as the next fetch,
// as a loop body's last instructions do. A fetch whose counter's cache
// line last moved to another core costs a body that computes at both
// ends what it costs a body of pure computation, and more than it costs
// a body of spins.
//
// A Work that loses its core takes longer by the time it was away, as
// computation does. ns ≤ 0 returns seed at once.
func Work(ns int64, seed uint64) uint64 {
	return mix(seed, workRounds(ns))
}

// workRounds returns how many mix rounds take about ns nanoseconds (at
// least one for ns > 0).
func workRounds(ns int64) int64 {
	if ns <= 0 {
		return 0
	}
	return max(int64(math.Round(float64(ns)/workRoundNs)), 1)
}

// mix runs k rounds of a multiply-xorshift mix on x. Each round depends
// on the one before, so the rounds take k times one round's latency
// whatever the core's width.
func mix(x uint64, k int64) uint64 {
	for range k {
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 29
	}
	return x
}

// workRoundNs is how long one round of mix takes, in nanoseconds.
var workRoundNs = measureWorkRound()

// measureWorkRound returns the fastest of five timings of workProbe
// rounds of mix, per round (fastestRound): the first warms the core,
// and a timing that lost the core to an interrupt is not the fastest.
func measureWorkRound() float64 { return fastestRound(5) }

// fastestRound returns the fastest of n timings of workProbe rounds of
// mix, per round, in nanoseconds (1 where the clock could not time
// them).
func fastestRound(n int) float64 {
	best := math.Inf(1)
	x := uint64(1)
	for range n {
		t0 := clock.Now()
		x = mix(x, workProbe)
		best = min(best, float64(clock.Now()-t0)/workProbe)
	}
	if x == 0 || !(best > 0) || math.IsInf(best, 0) {
		// x is never 0: the mix is a bijection that maps 0 to 0, so it
		// never maps 1 there. The test keeps the rounds from being
		// optimized away.
		return 1
	}
	return best
}

// workProbe is how many rounds fastestRound times at once: about
// 100 µs, long beside a clock read.
const workProbe = 1 << 16

// WorkScale returns what to ask Work for per nanosecond of computation
// wanted now: the time of a round as measured when the package was
// initialized over its time now (the fastest of three timings of
// workProbe rounds). Work does a fixed amount of computation for a
// request, at the rate measured once; a core's speed can move after
// that (on a virtual machine the host's load slows or speeds it by a
// third, for milliseconds at a time), so a caller that needs Work to
// take a given time, as a replay of recorded lengths does, scales its
// requests by this, measured in a moment that is not itself timed.
func WorkScale() float64 { return workRoundNs / fastestRound(3) }
