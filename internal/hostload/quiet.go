package hostload

import (
	"context"
	"runtime"
	"time"

	"github.com/parallel-prophet/prophet/internal/spin"

	"github.com/parallel-prophet/prophet/internal/affinity"
)

// Quiet-core probe: the CPUs' time is sampled over an idle window of
// statWindow; then t goroutines spin probeNs each and must not lose more
// than probeLostNs of it.
const (
	statWindow  = 50 * time.Millisecond
	probeNs     = 2_000_000
	probeLostNs = 100_000
	probePause  = 50 * time.Millisecond
)

// OthersBusy returns the share (0 to 1) of this process's CPUs' time
// that other work used while this process slept for a short window; ok
// is false where the system does not say.
func OthersBusy() (frac float64, ok bool) {
	cpus := affinity.CPUs()
	s0, ok := readSample(cpus)
	if !ok {
		return 0, false
	}
	time.Sleep(statWindow)
	s1, ok := readSample(cpus)
	if !ok || s1.total <= s0.total || s1.busy < s0.busy {
		return 0, false
	}
	return float64(s1.busy-s0.busy) / float64(s1.total-s0.total), true
}

// CoresFree reports whether t cores look free for a timed run: while
// this process slept, other processes left at least t cores' worth of
// CPU time idle (give or take a tenth of the machine), and t goroutines,
// run with GOMAXPROCS = t, each kept a core for a probeNs spin (none was
// descheduled for more than probeLostNs). spin.For counts only the time
// a goroutine ran, so the wall time of each spin beyond probeNs is time
// its core was taken away.
func CoresFree(t int) bool {
	if frac, ok := OthersBusy(); ok {
		cores := runtime.NumCPU()
		if frac > float64(cores-t)/float64(cores)+0.1 {
			return false
		}
	}
	prev := runtime.GOMAXPROCS(t)
	defer runtime.GOMAXPROCS(prev)
	for _, l := range spin.Team(t, probeNs) {
		if l > probeLostNs {
			return false
		}
	}
	return true
}

// DisturbedCores is how many cores other programs may keep busy on
// average, while real runs are timed, before a comparison with them
// counts as disturbed. Beside a quiet machine's background (a few
// hundredths of a core) it leaves room; a program spinning on one core
// reads near 1.
const DisturbedCores = 0.25

// idleWindow is the window WaitIdle samples the CPUs' time over: at the
// kernel's usual 100 ticks a second, long enough on two CPUs to tell a
// twentieth of a core.
const idleWindow = 200 * time.Millisecond

// WaitIdle waits, at most max, until other programs keep fewer than
// DisturbedCores of this process's cores busy over a short window, and
// reports whether they did (true also where the system does not say;
// false when ctx ends first). Unlike CoresFree it sends no probe of its
// own, so it does not mistake a virtual machine's slow wake-up of an
// idle core for another program.
func WaitIdle(ctx context.Context, max time.Duration) bool {
	deadline := time.Now().Add(max)
	for {
		if ctx.Err() != nil {
			return false
		}
		m := Start()
		select {
		case <-ctx.Done():
			return false
		case <-time.After(idleWindow):
		}
		if o, ok := m.Stop().OthersCores(); !ok || o < DisturbedCores {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// WaitQuiet waits, at most max, until t cores are free (CoresFree),
// probing every probePause. It reports whether they were (false also
// when ctx ends).
func WaitQuiet(ctx context.Context, t int, max time.Duration) bool {
	deadline := time.Now().Add(max)
	for {
		if CoresFree(t) {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(probePause):
		}
	}
}
