// Package par holds real goroutine parallel constructs: a parallel for
// loop with OpenMP-style static, static:C, dynamic:C and guided:C
// schedules run by a team of goroutines, and spawn-per-task (one goroutine
// per task with a sync.WaitGroup). Nesting is allowed.
//
// prophet's synthesizer replays program trees through these constructs and
// its validation suite measures real speedups with them; users can take
// them to parallelize their program for real once prophet says it pays.
package par
