package calibrate

import (
	"context"
	"runtime"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/par"
)

const (
	// noiseWatchDur is how long every core watches the clock for
	// hiccups (measureNoise).
	noiseWatchDur = 200 * time.Millisecond
	// noiseGapNs is the shortest gap between two clock reads of a tight
	// loop that counts as a hiccup: the loop itself reads the clock every
	// few tens of nanoseconds.
	noiseGapNs = 2000
)

// watchClock runs one goroutine per core (GOMAXPROCS), each reading the
// clock in a tight loop for d, as the workers of a parallel loop keep
// every core busy, and returns every gap between two reads longer than
// noiseGapNs that any of them saw, and the time watched in all (d per
// goroutine).
func watchClock(d time.Duration) (gaps []float64, watchedNs float64) {
	t := runtime.GOMAXPROCS(0)
	per := make([][]float64, t)
	par.For(t, t, par.Schedule{Policy: par.Static}, func(w int) {
		t0 := clock.Now()
		last := t0
		end := t0 + d.Nanoseconds()
		for last < end {
			n := clock.Now()
			if g := n - last; g > noiseGapNs {
				per[w] = append(per[w], float64(g))
			}
			last = n
		}
	})
	for _, g := range per {
		gaps = append(gaps, g...)
	}
	return gaps, float64(t) * float64(d.Nanoseconds())
}

// noiseStats summarizes the hiccups a core running a goroutine saw:
// their rate per second of watched time, and the median and 90th
// percentile of their lengths (ns). With no hiccups all three are 0.
func noiseStats(gaps []float64, watchedNs float64) (hz, p50, p90 float64) {
	if len(gaps) == 0 || !(watchedNs > 0) {
		return 0, 0, 0
	}
	p50 = robust.Quantile(0.5, gaps)
	p90 = robust.Quantile(0.9, gaps)
	return float64(len(gaps)) / (watchedNs / 1e9), p50, p90
}

// measureNoise watches every core for hiccups (watchClock) and returns
// noiseStats of what they saw.
func measureNoise(ctx context.Context) (hz, p50, p90 float64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, 0, err
	}
	gaps, watched := watchClock(noiseWatchDur)
	hz, p50, p90 = noiseStats(gaps, watched)
	return hz, p50, p90, nil
}
