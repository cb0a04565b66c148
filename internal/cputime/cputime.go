// Package cputime reads the CPU time of the calling thread and of the
// whole process, where the system has such clocks (Linux). prophet uses
// them to measure benchmarks by the time they ran rather than the wall
// time (calibrate), to tell work that ran slower from cores that sat
// idle (validate), and to time a real run the same way wherever one is
// compared with a prediction (Timed: validate and the demo).
package cputime

import (
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/fpu"
	"github.com/parallel-prophet/prophet/internal/spin"
)

// Around runs fn and returns the CPU time the whole process spent while
// it ran, in nanoseconds; ok is false where there is no process clock.
func Around(fn func()) (ns int64, ok bool) {
	c0, ok0 := Process()
	fn()
	c1, ok1 := Process()
	if !ok0 || !ok1 {
		return 0, false
	}
	return c1 - c0, true
}

// Timed runs fn the way prophet times a real run against a prediction:
// it first keeps warm cores busy for spin.WarmNs (0: none), so that fn
// starts on awake cores whatever ran before it, and clears the vector
// registers' upper state (fpu.ClearUpper: waiting for the warm-up may
// have moved the caller to a thread whose state slows floating-point
// code, and package par's workers start clear). It returns fn's wall
// time and the CPU time the whole process spent meanwhile, both in
// nanoseconds; cpu is -1 where there is no process clock.
func Timed(warm int, fn func()) (wall, cpu float64) {
	spin.Team(warm, spin.WarmNs)
	fpu.ClearUpper()
	ns, ok := Around(func() {
		t0 := clock.Now()
		fn()
		wall = float64(clock.Now() - t0)
	})
	if !ok {
		return wall, -1
	}
	return wall, float64(ns)
}
