// Package clock is prophet's monotonic nanosecond clock, shared by the
// profiler (timestamps), the synthesizer (spin delays) and the
// microbenchmarks, so that all of them measure time the same way.
//
// Ticks is the cheaper, raw alternative the profiler uses for event
// stamps: the CPU's time-stamp counter on amd64 (about 9 ns a read on the
// development VM, against about 23 ns for Now and 46 ns for time.Now),
// converted to nanoseconds with a rate measured by MeasureTickRate.
package clock

import _ "unsafe" // for go:linkname

// nanotime is the Go runtime's monotonic clock (the one under time.Now's
// monotonic reading), without building a time.Time: about half the cost
// of time.Now.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Now returns a monotonic timestamp in nanoseconds. Only differences
// between two readings mean anything.
func Now() int64 { return nanotime() }

// Name names the clock for profile metadata.
const Name = "runtime.nanotime"
