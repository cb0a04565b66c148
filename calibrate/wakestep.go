package calibrate

import (
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/par"
)

// Wake-step measurement: the teams started, the task each worker runs
// (long enough that every worker of the team has started before the
// first is done), and the fewest workers it is measured with.
const (
	wakeStepRounds = 40
	wakeStepTask   = 300 * time.Microsecond
	wakeStepMinK   = 4
)

// measureWakeStep measures Overheads.WakeStepNs: how far apart the
// workers of a team start after its first woken one, Go waking one idle
// core's thread at a time. It starts wakeStepRounds static teams of k =
// GOMAXPROCS workers of one task each, wakeGap apart as measureWake's
// sections are, and each worker notes when its task starts (wakeStep
// takes the step from those starts). With fewer than wakeStepMinK
// cores there are too few workers after the first woken one to see a
// step, and it returns 0 (ff then wakes every idle core at once, which
// on two cores is the same).
func measureWakeStep(ctx context.Context) (float64, error) {
	k := runtime.GOMAXPROCS(0)
	if k < wakeStepMinK {
		return 0, nil
	}
	rounds := make([][]float64, 0, wakeStepRounds)
	for range wakeStepRounds {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		spin.Wall(int64(wakeGap))
		starts := make([]int64, k) // par.For's return orders the writes before the read
		t0 := clock.Now()
		par.For(k, k, par.Schedule{Policy: par.Static}, func(i int) {
			starts[i] = clock.Now()
			spin.Wall(int64(wakeStepTask))
		})
		r := make([]float64, k)
		for i, s := range starts {
			r[i] = float64(s - t0)
		}
		rounds = append(rounds, r)
	}
	return wakeStep(rounds), nil
}

// wakeStep returns the wake step from the task starts of teams (one
// slice per team, one start per worker, in any order): per team, sorted,
// the first is the caller's own worker and the second the first woken
// core's (a wake-up latency after the fork); the step is the mean gap
// from the second to the last, (last − second)/(k − 2). It returns the
// median over the teams, and 0 for teams of fewer than three workers.
func wakeStep(teams [][]float64) float64 {
	var steps []float64
	for _, t := range teams {
		k := len(t)
		if k < 3 {
			continue
		}
		s := slices.Sorted(slices.Values(t))
		steps = append(steps, max(s[k-1]-s[1], 0)/float64(k-2))
	}
	if len(steps) == 0 {
		return 0
	}
	return robust.Median(steps)
}
