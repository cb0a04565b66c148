// Package spin busy-waits for a requested number of nanoseconds without
// touching memory: the synthesizer's stand-in for a program's computation
// (the paper's FakeDelay) and the validation suite's synthetic work.
//
// For loops on a clock of internal/clock: the CPU's time-stamp counter
// where it runs at a constant rate (its reads are not ordered, so the
// atomic instructions of a sync.Mutex next to a delay cost what they
// cost next to a program's own computation), the runtime's monotonic
// clock elsewhere. It counts only the
// time it was actually running: a gap between two consecutive clock
// readings longer than GapNs means the goroutine was descheduled (by the
// Go scheduler, which preempts goroutines that run for more than about
// 10 ms, or by the operating system), and that gap does not count as
// work. So a delay of d nanoseconds is d nanoseconds of computation even
// when more goroutines than cores share the machine, which is what the
// real computation it stands for would need.
//
// Work computes instead of waiting: a fixed number of dependent rounds
// of arithmetic on a seed, about a requested number of nanoseconds at
// the rate measured when the package is initialized. It stands for a
// task's computation where what surrounds the task matters, as it does
// for a dynamic loop's fetch of the next index: a wait for the seed adds
// to Work's time, where a clock loop counts it as its own.
package spin
