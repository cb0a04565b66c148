// Package profiler is prophet's interval profiler (paper section IV-B): it
// timestamps the annotation events of a serial program, checks that they
// nest, and builds the program tree with net lengths.
//
// A Profiler keeps the stack of open annotations (Sec, Task, Lock: name
// or lock id, and the event that opened it). Every END is matched against
// the top of the stack: a TaskEnd that meets a Sec, a LockEnd with another lock's
// id, a Task outside any Sec, a Sec or Task inside a Lock, and anything
// still open at Stop are reported as an *AnnotationError that names both
// annotations (kind, name or lock id, event number), and no tree is made.
//
// Lengths are net. The time between two consecutive events is one U node
// of the open Task, Sec or Root (or, between LockBegin and LockEnd, one L
// node); each such interval holds exactly one event's worth of profiler
// code (the part of the earlier event after its clock read plus the part
// of the later one before its clock read), so the profiler measures that
// per-event cost at Start, on the same code path with no work between
// events, and subtracts it from every interval, clamping at zero. The sum
// of all U and L lengths is then the run's time without the annotations.
// On machines whose clock read also keeps the core from overlapping the
// end of one task with the start of the next (some virtual machines), a
// loop of short tasks runs slower annotated than plain by more than the
// reads' own cost; Start measures that loss too (Profiler.OverlapLossNs,
// 0 where reads overlap the work) and takes it from each task's last
// interval, at most all of it.
// Two kinds of interval become no node of their own but join the next
// interval, which keeps the total exact: intervals shorter than two
// events' cost (clock noise around zero), and, inside a section but
// outside its tasks, gaps shorter than Options.SecGapNs (100 ns: the loop
// control between one TaskEnd and the next TaskBegin, which would
// otherwise break every run of equal tasks that the tree compresses).
//
// Consecutive tasks whose lengths differ by less than the tolerance, or
// by less than the measurement noise (tree.BuildOptions.SlackNs: 50 ns or
// four events' cost), merge into one run of their mean. Tasks that hold
// a lock are the exception: they merge within the tolerance and half an
// event's cost only (LockSlackNs), because when threads collide at a
// lock follows from each task's own lengths, and a loop of varied tasks
// merged into one run of identical ones emulates as if every thread
// kept the same rhythm, colliding at every turn or never.
//
// Recording is cheap: an event is one clock read and a store into a
// buffer. The tree is built from the buffer in batches (every
// few hundred events, and at Stop), and the time spent building it, like
// the time spent reading hardware counters, is cut out of the timeline
// by reading the clock again afterwards, so it falls into no interval.
// Building takes about 9 ns an event in the steady state of a loop on the
// development machine (BenchmarkDrain): net lengths are computed in fixed
// point (2^-32 ns), and a task that joins the run of tasks before it
// builds no nodes (see tree.Builder). The clock is the CPU's time-stamp counter where it runs at a constant
// rate and makes events cheaper (internal/clock.Ticks, about 10 ns a read
// against 23-27 ns for the Go runtime's monotonic clock on the
// development machine; both event costs are measured at Start), converted
// to nanoseconds with a rate measured at Start; otherwise
// runtime.nanotime. RDTSC is not serializing: a stamp may move by a few
// tens of cycles against the surrounding code, which shifts that much
// time between adjacent intervals and never changes their sum.
//
// The recording thread is pinned: Start locks the calling goroutine to
// its OS thread and binds that thread to the CPU it is running on, so
// timestamps and counters come from one CPU; Stop restores both. A
// Profiler belongs to the goroutine that called Start: the annotated
// program is serial, and calls from other goroutines are not supported.
//
// Per top-level section, the profiler reads instructions, cycles and
// cache misses from a perf_event group (github.com/hodgesds/perf-utils)
// on the pinned thread, enabling it at the section's SecBegin and reading
// it at its SecEnd outside the timed intervals; every top-level section
// carries the average over all runs of top-level sections with its name,
// as in the paper. Counters.TimeNs is the raw time the counters ran
// (profiler events inside the section included, as they are in the
// counts). Where there are
// no hardware counters (virtual machines often have no PMU, and
// perf_event_open fails with ENOENT), recording works all the same and the
// tree's Meta.CountersNote says why the counters are missing.
package profiler
