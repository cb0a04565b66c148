// Package cputime reads the CPU time of the calling thread and of the
// whole process, where the system has such clocks (Linux). prophet uses
// them to measure benchmarks by the time they ran rather than the wall
// time (calibrate) and to tell work that ran slower from cores that sat
// idle (validate).
package cputime

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
