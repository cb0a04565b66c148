package spin

import "github.com/parallel-prophet/prophet/internal/clock"

// GapNs is the longest interval between two consecutive clock readings
// that For always counts as its own running time. A clock read costs tens
// of nanoseconds, so a longer gap means the goroutine was not running. On
// a machine whose clock is slow to read (a clock source that is not the
// TSC), For also counts gaps of up to 8 times the fastest reading it saw,
// so it always makes progress.
const GapNs = 1000

// For busy-waits until it has run for ns nanoseconds and returns the
// nanoseconds it counted as running (at least ns, at most ns plus one
// clock read). Gaps longer than GapNs between clock readings (the
// goroutine was descheduled) are not counted, so the wall time of For
// is ns plus any time the goroutine lost its core. It touches no memory
// besides the stack. ns ≤ 0 returns 0 at once.
func For(ns int64) int64 {
	if ns <= 0 {
		return 0
	}
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
