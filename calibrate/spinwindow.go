package calibrate

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
)

// The spin-window sweep of measureSpin: holds of 0 to spinMaxHold in steps
// of spinStep, spinTrials trials each (a fraction of a second in all).
// A waiter that gets the lock more than spinSlowNs after
// the Unlock had parked.
const (
	spinStep    = 250
	spinMaxHold = 8000
	spinTrials  = 24
	spinSlowNs  = 10000
	// spinGap is the work each worker does between trials, so that the
	// next trial starts with both awake and apart.
	spinGap = 30000
)

// SpinLevel is one hold time of the spin-window sweep: the median wait (ns
// from the waiter's Lock call to the holder's Unlock), the share of
// waiters that had parked by then (woken more than 10 µs after the
// Unlock), and the median time from the waiter's Lock call to its
// holding the lock (GotNs: for a waiter that did not park, the time of
// the check at which it saw the lock free).
type SpinLevel struct {
	WaitNs float64
	Parked float64
	GotNs  float64
}

// spinTrial runs n contended hand-offs in one team of two long-running
// workers, as in a real parallel loop: per trial worker 0 holds the lock,
// worker 1 asks for it, worker 0 unlocks hold ns after seeing the request
// and goes on computing. It returns each trial's wait (ask to Unlock) and
// latency (Unlock to the waiter holding the lock).
func spinTrial(hold int64, n int) (waits, lats []int64) {
	var mu sync.Mutex
	var phase, asked, unlocked, got atomic.Int64
	waits, lats = make([]int64, n), make([]int64, n)
	par.For(2, 2, par.Schedule{Policy: par.Static}, func(w int) {
		for k := int64(1); k <= int64(n); k++ {
			if w == 0 {
				mu.Lock()
				phase.Store(k)
				for asked.Load() < k {
				}
				spin.Wall(hold)
				unlocked.Store(clock.Now())
				mu.Unlock()
				for got.Load() < k {
				}
			} else {
				for phase.Load() < k {
				}
				askAt := clock.Now()
				asked.Store(k)
				mu.Lock()
				t := clock.Now()
				mu.Unlock()
				u := unlocked.Load()
				waits[k-1], lats[k-1] = u-askAt, t-u
				got.Store(k)
			}
			spin.Wall(spinGap)
		}
	})
	return waits, lats
}

// spinLevel sums up one hold time's trials: the median wait (a trial
// whose worker lost its core is far off) and the share of latencies over
// spinSlowNs.
func spinLevel(waits, lats []int64) SpinLevel {
	var l SpinLevel
	ws := make([]float64, len(waits))
	gs := make([]float64, len(waits))
	for i := range waits {
		ws[i] = float64(waits[i])
		gs[i] = float64(waits[i] + lats[i])
		if lats[i] > spinSlowNs {
			l.Parked++
		}
	}
	l.WaitNs = robust.Quantile(0.5, ws)
	l.GotNs = robust.Quantile(0.5, gs)
	l.Parked /= float64(max(len(lats), 1))
	return l
}

// measureSpin sweeps the hold time and fits the spin window and the
// time between two checks of a spinning waiter to the levels
// (FitSpinWindow, FitSpinCheck). With one core there is no spinning to
// measure (sync.Mutex never spins then) and it returns zeros.
func measureSpin(ctx context.Context) (spinNs, rampNs, checkNs float64, err error) {
	if runtime.NumCPU() < 2 {
		return 0, 0, 0, nil
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var levels []SpinLevel
	for hold := int64(0); hold <= spinMaxHold; hold += spinStep {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, err
		}
		waits, lats := spinTrial(hold, spinTrials)
		levels = append(levels, spinLevel(waits, lats))
	}
	spinNs, rampNs = FitSpinWindow(levels)
	return spinNs, rampNs, FitSpinCheck(levels), nil
}

// FitSpinCheck returns the time between two checks of the lock by a
// spinning waiter (machine.Overheads.LockCheckNs) from a sweep of hold
// times: the latest check a waiter that did not park took the lock at
// (the largest GotNs of the levels with at most 10% parked), over
// machine.SpinChecks. Its checks come at fixed steps from its request,
// so the levels' GotNs climb in stairs, one a check, and the last stair
// is the last check; 0 where no level qualifies.
func FitSpinCheck(levels []SpinLevel) float64 {
	last := 0.0
	for _, l := range levels {
		if l.Parked <= 0.1 {
			last = max(last, l.GotNs)
		}
	}
	return last / machine.SpinChecks
}

// FitSpinWindow fits the spin window (machine.Overheads.LockSpinNs and
// LockSpinRampNs) to a sweep of hold times, levels in increasing order of
// hold: the window opens at the first level where at least half the
// waiters had parked; it starts at the wait of the last level before
// that with at most 10% parked, and its ramp ends at the wait of the
// first level from there on with at least 90% parked. Noise past the
// window (a stray fast hand-off) does not move it. Where no level has
// half its waiters parked, the window is wider than the sweep: it starts
// at the longest wait measured, with no ramp. Where the first level
// already has, sync.Mutex does not spin on this machine: the window is
// the first level's wait (at least 1 ns, so that it reads as measured).
func FitSpinWindow(levels []SpinLevel) (spinNs, rampNs float64) {
	if len(levels) == 0 {
		return 0, 0
	}
	half := -1
	for i, l := range levels {
		if l.Parked >= 0.5 {
			half = i
			break
		}
	}
	switch half {
	case -1:
		return max(levels[len(levels)-1].WaitNs, 1), 0
	case 0:
		return max(levels[0].WaitNs, 1), 0
	}
	start := levels[0].WaitNs
	for i := half - 1; i >= 0; i-- {
		if levels[i].Parked <= 0.1 {
			start = levels[i].WaitNs
			break
		}
	}
	end := levels[len(levels)-1].WaitNs
	for i := half; i < len(levels); i++ {
		if levels[i].Parked >= 0.9 {
			end = levels[i].WaitNs
			break
		}
	}
	return max(start, 1), max(end-start, 0)
}
