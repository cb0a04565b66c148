package validate

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/internal/spin"
)

// Quiet-core probe: the machine's CPU time is sampled over an idle
// window of statWindow (from /proc/stat where there is one); then t
// goroutines spin probeNs each and must not lose more than probeLostNs
// of it.
const (
	statWindow  = 50 * time.Millisecond
	probeNs     = 2_000_000
	probeLostNs = 100_000
	probePause  = 50 * time.Millisecond
)

// cpuTimes returns the machine's busy and total CPU time so far, in
// clock ticks, from /proc/stat; ok is false where it cannot be read.
// Steal time (the hypervisor ran someone else) counts as busy.
func cpuTimes() (busy, total uint64, ok bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [8]uint64
	for i := range v {
		if v[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
			return 0, 0, false
		}
	}
	// user nice system idle iowait irq softirq steal
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return busy, busy + v[3] + v[4], true
}

// othersBusy returns the fraction of the machine's CPU time used by
// others while this process sleeps for statWindow; ok is false where
// the system does not say.
func othersBusy() (frac float64, ok bool) {
	b0, t0, ok := cpuTimes()
	if !ok {
		return 0, false
	}
	time.Sleep(statWindow)
	b1, t1, ok := cpuTimes()
	if !ok || t1 <= t0 {
		return 0, false
	}
	return float64(b1-b0) / float64(t1-t0), true
}

// coresFree reports whether t cores look free for a timed run: while
// this process slept, other processes left at least t cores' worth of
// CPU time idle (give or take one tick), and t goroutines, run with
// GOMAXPROCS = t, each kept a core for a probeNs spin (none was
// descheduled for more than probeLostNs). spin.For counts only the time
// a goroutine ran, so the wall time of each spin beyond probeNs is time
// its core was taken away.
func coresFree(t int) bool {
	if frac, ok := othersBusy(); ok {
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

// waitQuiet waits, at most max, until t cores are free, probing every
// probePause. It reports whether they were (false also when ctx ends).
func waitQuiet(ctx context.Context, t int, max time.Duration) bool {
	deadline := time.Now().Add(max)
	for {
		if coresFree(t) {
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
