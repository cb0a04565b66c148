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

// hiccup is a gap in one core's clock reads: the core's goroutine did
// not run from from to to (clock ns).
type hiccup struct{ from, to int64 }

// watchClock runs one goroutine per core (GOMAXPROCS), each reading the
// clock in a tight loop for d, as the workers of a parallel loop keep
// every core busy, and returns, core by core and in time order, every
// gap between two reads longer than noiseGapNs.
func watchClock(d time.Duration) [][]hiccup {
	t := runtime.GOMAXPROCS(0)
	per := make([][]hiccup, t)
	par.For(t, t, par.Schedule{Policy: par.Static}, func(w int) {
		t0 := clock.Now()
		last := t0
		end := t0 + d.Nanoseconds()
		for last < end {
			n := clock.Now()
			if n-last > noiseGapNs {
				per[w] = append(per[w], hiccup{last, n})
			}
			last = n
		}
	})
	return per
}

// privateHiccups returns the parts of per's hiccups (per core, in time
// order) that another core ran through, longer than noiseGapNs, for
// every pair of a core and another core, and how many pairs there were
// (0 with one core: then every hiccup is whole and counted once). A
// hiccup that pauses every core at once (a virtual machine's, whose
// host stops all its CPUs) delays no goroutine against another: a lock
// waiter is stopped as long as its holder. What matters for a lock is
// the part of the holder's hiccup in which the waiter's core ran on.
func privateHiccups(per [][]hiccup) (parts []float64, pairs int) {
	if len(per) < 2 {
		for _, hs := range per {
			for _, h := range hs {
				parts = append(parts, float64(h.to-h.from))
			}
		}
		return parts, 0
	}
	for i, hs := range per {
		for j, other := range per {
			if i == j {
				continue
			}
			pairs++
			k := 0
			for _, h := range hs {
				for k < len(other) && other[k].to <= h.from {
					k++
				}
				covered := int64(0)
				for m := k; m < len(other) && other[m].from < h.to; m++ {
					covered += min(h.to, other[m].to) - max(h.from, other[m].from)
				}
				if p := h.to - h.from - covered; p > noiseGapNs {
					parts = append(parts, float64(p))
				}
			}
		}
	}
	return parts, pairs
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
// noiseStats of their private parts (privateHiccups): how often, per
// second of a busy core, and for how long it stops while another core
// runs on.
func measureNoise(ctx context.Context) (hz, p50, p90 float64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, 0, err
	}
	per := watchClock(noiseWatchDur)
	parts, pairs := privateHiccups(per)
	// Each core was watched once for every other core (once alone).
	views := pairs
	if views == 0 {
		views = len(per)
	}
	hz, p50, p90 = noiseStats(parts, float64(views)*float64(noiseWatchDur.Nanoseconds()))
	return hz, p50, p90, nil
}
