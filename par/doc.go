// Package par holds real goroutine parallel constructs: a parallel for
// loop with OpenMP-style static, static:C, dynamic:C and guided:C
// schedules run by a team of goroutines, and spawn-per-task (one goroutine
// per task with a sync.WaitGroup). Nesting is allowed.
//
// For(n, threads, schedule, body) runs body(i) for every i in [0, n)
// exactly once. With a worksharing schedule a team of threads workers runs
// the loop: the calling goroutine is worker 0 and threads−1 goroutines are
// started (never more workers than iterations); the call returns when
// every worker is done. static gives worker w the w-th of t nearly equal
// contiguous blocks, static:C deals chunks of C round-robin (both as
// Schedule.StaticChunks defines), dynamic:C hands the next C iterations to
// the first free worker through a shared atomic counter, and guided:C
// hands it Schedule.GuidedChunk(remaining, t) iterations. With spawn, one
// goroutine runs each iteration and the Go scheduler shares
// runtime.GOMAXPROCS cores among them. ForWorker passes the worker index
// too, and Do runs a few functions on their own goroutines.
//
// A body may call For again; the inner call forms its own team. All
// goroutines share GOMAXPROCS cores through Go's scheduler, which is
// greedy: any idle core runs any runnable goroutine, and a goroutine
// blocked at a join frees its core.
//
// prophet's synthesizer replays program trees through these constructs and
// its validation suite measures real speedups with them; users can take
// them to parallelize their program for real once prophet says it pays.
package par
