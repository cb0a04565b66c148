// Package validate checks prophet's predictions against real parallel
// runs, as the paper's section VII-B does.
//
// It generates random programs of the paper's two test patterns (Test1,
// figure 9: a parallel loop with workload imbalance and up to two
// critical sections, high lock contention possible; Test2, figure 10:
// Test1 inside an outer loop, as frequent inner-loop parallelism or as
// nested parallelism). A sample is a Program: a complete, seeded
// description with three executable forms, the annotated serial version
// (Serial), the same without its annotations (SerialPlain) and the real
// parallel version built on package par with real mutexes (Parallel),
// which do the same work as spin delays (a fine-grained loop's tasks
// compute at either end, spin.Work, as a loop body does, since what a
// dynamic loop's fetch costs depends on the work around it). The real
// speedups of generated samples are over SerialPlain: the recording
// leaves the annotation calls out of the task lengths the emulators
// replay, and the parallel version has none, so the annotated version's
// calls (a few to tens of nanoseconds a task) would make fine-grained
// loops look faster in parallel than the work they do. The kernels'
// real speedups are over their annotated serial version (they have no
// other).
//
// Run records each sample's serial version three times with
// annotate.RecordWith, pooling the recordings (profiler.Repeat: every
// interval the second shortest of the three, or the shortest where the
// second lies a hiccup above it) at a compression tolerance of 0.5%
// (Config.Tolerance), and records a generated sample again where its
// recorded work lies outside PlausibleLow to PlausibleHigh times its
// plain serial run's time (a broken recording, up to RecordTries
// times); it predicts its speedup with the emulators (ff, syn),
// measures the real speedup of the parallel version at the same
// schedule and thread count (runtime.GOMAXPROCS set to it; median of
// repeated runs), and reports the error |predicted − real| / real per
// row and, averaged and maximal, per test, emulator, schedule and
// thread count. Config.Examples runs the real kernels of package
// kernels the same way. A Report writes itself as a table, as JSON and
// as an SVG scatter plot.
//
// Every timed real run, serial or parallel, starts after every core has
// spun for spin.WarmNs (spin.Team): on a virtual machine a core left idle
// for some 20 ms is slow to wake for milliseconds after, and without the
// warm-up the real speedup of a schedule would depend on its place in
// the round of runs. The synthesizer, which measures the machine too,
// replays each schedule and thread count once per round, right after the
// round's real runs, and its prediction takes the same statistic over
// the rounds as the real speedup, so that both meet the same stretches
// of the machine's load. With Config.QuietWait, a round after which the
// cores turn out busy is taken again, replays included, a bounded number
// of times.
//
// Config.Repeats rounds make a measurement when their medians have
// settled; where one has not (its confidence interval, the runs around
// it, spans more than 10% of it), more rounds follow, up to
// Config.MaxRepeats. Some samples' real runs are bimodal, a lock convoy
// forming or not, and a median of few runs lands in either mode, as does
// the synthesizer's, which replays real mutexes.
//
// The recordings are pooled because a single one carries the
// disturbances of its own run: a timer interrupt or another process
// lengthens the task it falls into, and where tasks contend for a lock,
// one task recorded too long shifts the phase between the emulated
// threads into contention that the real runs do not have.
//
// Accuracy depends on the machine being quiet; validate reports the
// spread of the real runs so a noisy truth can be told from a wrong
// prediction. It also reports each real parallel run's CPU inflation
// (Row.CPUInflation: the process's CPU time in the parallel run over the
// serial run's), so a kernel whose tasks ran slower in parallel (memory
// bandwidth, cache lines moving between cores) can be told from one the
// emulator scheduled wrongly: the emulators replay the serial profile and
// see such effects only through the memory model. Beside it stands the
// prediction's own CPU inflation (Row.PredictedCPU: ff's busy time over
// the serial time), so that an error in what the work cost the threads
// (a lock's or a counter's cache line, spinning) can be told from one in
// how long they sat idle; a note names a prediction well above the real
// speedup whose real runs took well more CPU time than the emulated
// threads (slowerNote). A real speedup more
// than 3% above the thread count gets a note: no schedule of the serial
// run's task lengths is that fast, so either the parallel run did less
// work, as its CPU time shows (concurrent tasks sharing input lines in
// the last-level cache), or other load slowed the serial runs.
//
// docs/measurements.md records the validations behind these choices.
package validate
