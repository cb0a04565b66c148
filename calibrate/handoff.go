package calibrate

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
)

// The hand-off sweep: how long a holder keeps the lock before its
// Unlock (the parked waiter's wait), the rounds of the sweep (each
// holds every wait once, in turn, so that a disturbed stretch falls on
// all of them alike), and the waits whose trials give the doze costs
// (at most handoffDozeMax) and the asleep ones (at least
// handoffSleepMin).
var handoffWaits = []time.Duration{
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 150 * time.Microsecond, 200 * time.Microsecond,
	300 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2 * time.Millisecond,
}

const (
	handoffRounds   = 30
	handoffDozeMax  = 50 * time.Microsecond
	handoffSleepMin = time.Millisecond
	// handoffMax bounds how long the unlocker keeps running while it
	// waits for the waiter to get the lock.
	handoffMax = 10 * time.Millisecond
	// dozeGain is how much shorter than the asleep hand-off the doze's
	// must be to count: a smaller difference is the measurement's
	// noise, and the profile then has no doze.
	dozeGain = 0.8
)

// handoffCosts are the lock hand-off's costs (see machine.Overheads'
// LockHandoffNs, LockHandoffP90Ns, LockWakeNs and LockDoze fields).
type handoffCosts struct {
	handoffNs, handoffP90Ns, wakeNs               float64
	dozeNs, dozeRampNs, dozeHandoffNs, dozeWakeNs float64
}

// set sets ov's hand-off costs to c's.
func (c handoffCosts) set(ov *machine.Overheads) {
	ov.LockHandoffNs, ov.LockHandoffP90Ns, ov.LockWakeNs = c.handoffNs, c.handoffP90Ns, c.wakeNs
	ov.LockDozeNs, ov.LockDozeRampNs, ov.LockDozeHandoffNs, ov.LockDozeWakeNs = c.dozeNs, c.dozeRampNs, c.dozeHandoffNs, c.dozeWakeNs
}

// handoffOnce measures one contended hand-off: the holder keeps the lock
// for hold while a waiter blocks on it, then unlocks. It returns the time
// from the Unlock to the waiter holding the lock, and how long the Unlock
// itself took (it wakes the parked waiter's thread).
func handoffOnce(hold time.Duration) (handoff, unlock float64) {
	var mu sync.Mutex
	var got atomic.Int64
	var waiting sync.WaitGroup
	done := make(chan struct{})
	mu.Lock()
	waiting.Add(1)
	go func() {
		waiting.Done()
		mu.Lock()
		got.Store(clock.Now())
		mu.Unlock()
		close(done)
	}()
	waiting.Wait()
	spin.Wall(int64(hold))
	t0 := clock.Now()
	mu.Unlock()
	t1 := clock.Now()
	// The unlocker keeps running, as a worker going on to its next task
	// does: the parked waiter runs only once an idle core has woken up
	// for it (the delay ff charges as LockHandoffNs).
	for end := t0 + int64(handoffMax); got.Load() == 0 && clock.Now() < end; {
	}
	<-done
	return float64(max(got.Load()-t0, 0)), float64(t1 - t0)
}

// measureHandoff sweeps handoffOnce over the waits of handoffWaits,
// handoffRounds times each, and fits the costs to the trials
// (fitHandoff). A waiter's hand-off depends on how long it waited: its
// thread parks within microseconds, but its idle core sleeps deeper the
// longer it stays idle (a virtual CPU's guest polls for a while before
// it halts the CPU), and waking it takes longer then; the Unlock that
// wakes it pays for the deeper sleep too.
func measureHandoff(ctx context.Context) (handoffCosts, error) {
	if runtime.NumCPU() >= 2 {
		// The waiter must be able to wake on a second core.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	hs := make([][]float64, len(handoffWaits))
	us := make([][]float64, len(handoffWaits))
	for r := 0; r < handoffRounds; r++ {
		if ctx.Err() != nil {
			return handoffCosts{}, ctx.Err()
		}
		for i, w := range handoffWaits {
			h, u := handoffOnce(w)
			hs[i], us[i] = append(hs[i], h), append(us[i], u)
		}
	}
	waits := make([]float64, len(handoffWaits))
	for i, w := range handoffWaits {
		waits[i] = float64(w)
	}
	return fitHandoff(waits, hs, us, float64(handoffDozeMax), float64(handoffSleepMin)), nil
}

// fitHandoff fits the hand-off costs to a sweep's trials: hs[i] and
// us[i] are the hand-offs and the Unlocks' own times of the trials that
// waited waits[i] (ascending). The waits of sleepMin or more give the
// asleep costs: the median and 90th percentile of their hand-offs and
// the median of their Unlocks. The waits of dozeMax or less give the
// doze's medians, which count only where the doze's hand-off is under
// dozeGain of the asleep one. The doze then lasts to the last wait
// before the first one whose median hand-off is nearer the asleep than
// the doze's, and ramps up to that one (LockDozeNs, LockDozeRampNs).
func fitHandoff(waits []float64, hs, us [][]float64, dozeMax, sleepMin float64) handoffCosts {
	var sleepH, sleepU, dozeH, dozeU []float64
	for i, w := range waits {
		if w >= sleepMin {
			sleepH, sleepU = append(sleepH, hs[i]...), append(sleepU, us[i]...)
		}
		if w <= dozeMax {
			dozeH, dozeU = append(dozeH, hs[i]...), append(dozeU, us[i]...)
		}
	}
	var c handoffCosts
	if len(sleepH) == 0 {
		return c
	}
	c.handoffNs, c.handoffP90Ns = robust.Quantile(0.5, sleepH), robust.Quantile(0.9, sleepH)
	c.wakeNs = robust.Quantile(0.5, sleepU)
	if len(dozeH) == 0 {
		return c
	}
	doze := robust.Quantile(0.5, dozeH)
	if !(doze < dozeGain*c.handoffNs) {
		return c
	}
	mid := (doze + c.handoffNs) / 2
	k := slices.IndexFunc(hs, func(h []float64) bool { return len(h) > 0 && robust.Quantile(0.5, h) >= mid })
	if k < 1 {
		return c
	}
	c.dozeNs, c.dozeRampNs = waits[k-1], waits[k]-waits[k-1]
	c.dozeHandoffNs, c.dozeWakeNs = doze, robust.Quantile(0.5, dozeU)
	return c
}
