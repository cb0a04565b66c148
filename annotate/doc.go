// Package annotate is the API a serial Go program uses to describe the
// parallelism it could have, for prophet to predict its parallel speedup.
//
// Nothing is parallelized: the calls only mark where a parallel section
// (SecBegin/SecEnd), its tasks (TaskBegin/TaskEnd) and critical sections
// (LockBegin/LockEnd) would be:
//
//	annotate.SecBegin("rows")
//	for i := range rows {
//		annotate.TaskBegin("row")
//		work(i)
//		annotate.LockBegin(1)
//		total += partial
//		annotate.LockEnd(1)
//		annotate.TaskEnd()
//	}
//	annotate.SecEnd(false)
//
// A critical section that updates data the task picks by what it
// computed, such as a histogram's bin, is marked with LockIndexedBegin
// (or LockIndexed) instead of LockBegin, which marks one that updates a
// fixed variable.
//
// Calls must nest: a section holds tasks; a task holds computation, locks
// and nested sections; a lock holds computation only. Loop, Task and Lock
// are Go-style helpers for the common shapes, and the closure forms Loop
// and Task are also what race mode can check:
//
//	annotate.Loop("rows", n, func(i int) {
//		partial := work(i)
//		annotate.Lock(1, func() { total += partial })
//	})
//
// # Recording
//
// Recording is off unless Start is called or the environment variable
// PROPHET_PROFILE names a file when the program starts (which is what
// `prophet run -o FILE -- PROGRAM` does). Either way the program must call
// Stop, usually with defer in main, to write the profile:
//
//	func main() {
//		defer func() {
//			if err := annotate.Stop(); err != nil {
//				log.Print(err)
//			}
//		}()
//		...
//	}
//
// PROPHET_TOLERANCE, when set, is the recording's compression tolerance
// (`prophet run --tolerance`; see EnvTolerance); StartWith and RecordWith
// take profiler options directly.
//
// Go offers no hook at process exit, so a program that sets
// PROPHET_PROFILE but never calls Stop (or exits through os.Exit) writes
// nothing. Stop when not recording does nothing and returns nil, so the
// same binary runs with and without profiling. With recording off, every
// annotation call is one load and a branch (about 1 ns); the calls can
// stay in production code.
//
// # One goroutine
//
// The annotated program is serial. Recording belongs to the goroutine
// that started it (for PROPHET_PROFILE, the first goroutine that records
// an event: the main goroutine of a program, a test's goroutine in a
// test binary), which is locked to its OS thread and pinned to one CPU
// until Stop. Annotation calls from any other goroutine while recording,
// at the same time or one after another, are not recorded: Stop then
// returns profiler.ErrForeign and writes no profile.
//
// # Race mode
//
// The same annotations say whether the parallel version would be safe.
// In a program built with -race, with the environment variable
// PROPHET_RACE naming a file (`prophet race -- PROGRAM` sets it), nothing
// is recorded; instead every task written with Task or Loop runs on a
// goroutine of its own, one after another, the hand-offs between them
// hidden from Go's race detector. The program computes what it computes
// serially, and the detector sees the tasks of a section as concurrent,
// a section's start ordered before its tasks, its tasks before the code
// after it (unless nowait) and each annotated lock as a real sync.Mutex:
// the races it reports are those the parallel version could have on this
// input. Tasks written with TaskBegin and TaskEnd cannot move to another
// goroutine and run inline, unchecked; prophet race names their sections.
// A build without -race compiles race mode away, and the annotation calls
// cost what they did.
//
// Annotation mistakes (a TaskEnd that closes a section, a LockEnd with
// the wrong id, a task outside any section, a section left open at Stop)
// are reported by Stop as a *profiler.AnnotationError naming both
// annotations, and no profile is written.
package annotate
