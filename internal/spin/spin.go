package spin

import (
	"math"
	"sync"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
)

// GapNs is the longest interval between two consecutive clock readings
// that For always counts as its own running time. A clock read costs
// nanoseconds to tens of nanoseconds, so a longer gap means the
// goroutine was not running. On a machine whose clock is slow to read (a
// clock source that is not the TSC), For also counts gaps of up to 8
// times the fastest reading it saw, so it always makes progress.
const GapNs = 1000

// For busy-waits until it has run for ns nanoseconds and returns the
// nanoseconds it counted as running (at least ns, at most ns plus one
// clock read). Gaps longer than GapNs between clock readings (the
// goroutine was descheduled) are not counted, so the wall time of For
// is ns plus any time the goroutine lost its core. It touches no memory
// besides the stack. ns ≤ 0 returns 0 at once.
//
// Where the CPU's time-stamp counter runs at a constant rate
// (clock.TicksStable), For reads it (clock.Ticks) rather than the
// runtime's clock: the runtime's read is ordered, so it waits for the
// atomic instructions before it, and every sync.Mutex Lock and Unlock
// next to For would cost many times what it costs next to a program's
// own computation. The counter's rate is measured when the package is
// initialized, in a few milliseconds.
func For(ns int64) int64 {
	if ns <= 0 {
		return 0
	}
	if tickRate > 0 {
		return forTicks(ns, tickRate, false)
	}
	return forNow(ns)
}

// ForOrdered is For whose first clock reading waits for every
// instruction before the call to complete (clock.TicksOrdered). For's
// first reading does not wait: a cache miss just before it, such as a
// dynamic loop's atomic fetch of the next index, runs while For already
// counts, and a delay of ns hides up to ns of it. A task that computes
// on its index cannot start before the fetch completes, so a spin that
// stands for such a task starts with ForOrdered. Where For reads the
// runtime's clock, whose reads are ordered, the two are the same.
func ForOrdered(ns int64) int64 {
	if ns <= 0 {
		return 0
	}
	if tickRate > 0 {
		return forTicks(ns, tickRate, true)
	}
	return forNow(ns)
}

// forNow is For on the runtime's clock (clock.Now).
func forNow(ns int64) int64 {
	var run int64
	fastest := int64(1 << 62)
	last := clock.Now()
	for run < ns {
		now := clock.Now()
		d := now - last
		last = now
		if d < fastest {
			fastest = d
		}
		if d <= GapNs || d <= 8*fastest {
			run += d
		}
	}
	return run
}

// forTicks is For on the time-stamp counter, whose ticks last r ns, and
// with ordered ForOrdered (its first reading ordered). A difference of
// no ticks or fewer (a move to a CPU whose counter lags) counts nothing.
// It is forNow's loop with the other clock, written out rather than
// shared through a func value, whose indirect call per read leaves a
// mutex next to the delay dearer again.
func forTicks(ns int64, r float64, ordered bool) int64 {
	want := int64(math.Ceil(float64(ns) / r))
	gap := int64(GapNs / r)
	var run int64
	fastest := int64(1 << 62)
	var last int64
	if ordered {
		last = clock.TicksOrdered()
	} else {
		last = clock.Ticks()
	}
	for run < want {
		now := clock.Ticks()
		d := now - last
		last = now
		if d <= 0 {
			continue
		}
		if d < fastest {
			fastest = d
		}
		if d <= gap || d <= 8*fastest {
			run += d
		}
	}
	return max(int64(float64(run)*r), ns)
}

// tickRate is how many nanoseconds a tick of clock.Ticks lasts where For
// may count on them (a hardware counter at a constant rate), and 0
// elsewhere. It is measured when the package is initialized, so that no
// timed delay (the first of a recording or of a timed run) carries the
// measurement's sleep.
var tickRate = measureTickRate()

// measureTickRate returns the value of tickRate.
func measureTickRate() float64 {
	if !clock.TicksAreTSC {
		return 0
	}
	if ok, _ := clock.TicksStable(); !ok {
		return 0
	}
	if r := clock.MeasureTickRate(tickRateSleep); r > 0 && r != 1 {
		return r
	}
	return 0
}

// Clock names the clock For reads on this machine: "tsc" (the
// time-stamp counter, clock.Ticks) or clock.Name (the runtime's). What a
// spin delay costs beyond its request depends on it.
func Clock() string {
	if tickRate > 0 {
		return "tsc"
	}
	return clock.Name
}

// tickRateSleep is how long measureTickRate measures the counter's rate
// over: long enough for an error of a few parts in 10^5.
const tickRateSleep = 4 * time.Millisecond

// Wall busy-waits until ns nanoseconds of wall time have passed since
// the call, whether or not the goroutine kept its core all along. It is
// the plain clock loop, for comparison with For and for callers that
// want a deadline rather than an amount of work.
func Wall(ns int64) {
	if ns <= 0 {
		return
	}
	end := clock.Now() + ns
	for clock.Now() < end {
	}
}

// Team runs t goroutines that each spin For(ns), waits for all of them,
// and returns how much longer than ns each one took in wall time: the
// time its core was taken away. With GOMAXPROCS at least t it keeps t
// cores busy for ns, which both probes whether t cores are free and
// wakes them up before a timed parallel run (see WarmNs).
func Team(t int, ns int64) []int64 {
	lost := make([]int64, max(t, 0))
	var wg sync.WaitGroup
	for i := range lost {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := clock.Now()
			For(ns)
			lost[i] = clock.Now() - t0 - ns
		}()
	}
	wg.Wait()
	return lost
}

// WarmNs is how long Team should keep the cores busy before a timed
// parallel run so that it starts on awake cores. On a virtual machine a
// virtual CPU that has been idle for some 20 ms or more (a sleep, or a
// serial run that leaves all but one core idle) is slow to wake for
// several milliseconds after, and a short parallel run that starts on
// such cores runs far below its speedup on warm ones (docs/measurements.md).
const WarmNs = 10_000_000
