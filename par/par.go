package par

import (
	"sync"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/internal/fpu"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/cpu"
)

// For runs body(i) for every i in [0, n) exactly once, in parallel as
// schedule s says, and returns when all of them have returned.
//
// For Static, StaticChunk, Dynamic and Guided, a team of threads workers
// runs the loop: the calling goroutine is worker 0 and threads−1 new
// goroutines are started, never more workers than iterations. Static and
// StaticChunk give worker w the chunks StaticChunks assigns it, in order;
// Dynamic hands the next Chunk iterations to the first free worker;
// Guided hands the first free worker GuidedChunk(remaining, team size)
// iterations. For Spawn, one goroutine is started per iteration and
// threads is not used: the number of cores is runtime.GOMAXPROCS. For
// Pool, the caller fills a buffered channel with the n indices, threads
// new goroutines drain it and the caller waits (it is no worker). For
// Errgroup, one goroutine is started per iteration through an
// errgroup.Group limited to threads goroutines at once.
//
// threads < 1 is treated as 1 (the loop runs on the calling goroutine);
// a Chunk < 1 is treated as 1; n ≤ 0 runs nothing. body may call For
// again: the inner call forms its own team. If body panics in any worker,
// For waits for the other workers and then panics with the first value
// on the calling goroutine.
//
// Every worker and every spawned goroutine starts with a clear vector
// register state, and the caller gets one back when For returns (see
// package internal/fpu): on amd64 a goroutine that starts or resumes on a
// thread that was asleep can otherwise run scalar floating-point loops a
// third slower than the same loop ran serially.
func For(n, threads int, s Schedule, body func(i int)) {
	ForWorker(n, threads, s, func(_, i int) { body(i) })
}

// ForWorker is For with the worker index (0 ≤ worker < team size) passed
// to body, for per-worker accumulators. For Spawn and Errgroup, worker =
// i.
func ForWorker(n, threads int, s Schedule, body func(worker, i int)) {
	if n <= 0 {
		return
	}
	if threads < 1 {
		threads = 1
	}
	switch s.Policy {
	case Spawn:
		spawn(n, body)
		return
	case Pool:
		pool(n, min(threads, n), body)
		return
	case Errgroup:
		limited(n, threads, body)
		return
	}
	t := min(threads, n)
	var run func(w int)
	switch s.Policy {
	case Static, StaticChunk:
		// The worker's chunks in its own loop, not through
		// WorkerChunks' callback: a call per chunk costs a loop of fine
		// tasks several nanoseconds a chunk (BenchmarkChunkBody), which
		// a cyclic loop written by hand does not pay, nor ff charge.
		run = func(w int) {
			first, size, step := s.workerStride(n, t, w)
			for lo := first; lo < n; lo += step {
				for i, hi := lo, min(lo+size, n); i < hi; i++ {
					body(w, i)
				}
			}
		}
	case Dynamic:
		c := max(s.Chunk, 1)
		next := new(counter)
		run = func(w int) {
			for {
				lo := int(next.Add(int64(c))) - c
				if lo >= n {
					return
				}
				for i, hi := lo, min(lo+c, n); i < hi; i++ {
					body(w, i)
				}
			}
		}
	case Guided:
		g := Schedule{Policy: Guided, Chunk: max(s.Chunk, 1)}
		next := new(counter)
		run = func(w int) {
			for {
				lo := int(next.Load())
				if lo >= n {
					return
				}
				hi := lo + g.GuidedChunk(n-lo, t)
				if !next.CompareAndSwap(int64(lo), int64(hi)) {
					continue
				}
				for i := lo; i < hi; i++ {
					body(w, i)
				}
			}
		}
	default:
		// An unknown policy: run the loop serially rather than fail;
		// For has no error to return.
		run = func(w int) {
			for i := 0; i < n; i++ {
				body(w, i)
			}
		}
		t = 1
	}
	team(t, run)
}

// counter is a dynamic or guided loop's shared iteration counter, on a
// cache line of its own. A bare atomic.Int64 is a small allocation that
// the heap packs beside the caller's small objects (a sync.Mutex
// allocated just before the loop shares its line half the time), and
// every fetch would then also move the line of whatever sits beside it.
type counter struct {
	_ cpu.CacheLinePad
	atomic.Int64
	_ cpu.CacheLinePad
}

// catcher keeps the first panic of a group of goroutines, to re-raise on
// the goroutine that waits for them.
type catcher struct {
	once   sync.Once
	val    any
	caught bool
}

// keep, deferred by a goroutine of the group, keeps its panic if it is
// the group's first.
func (c *catcher) keep() {
	if r := recover(); r != nil {
		c.once.Do(func() { c.val, c.caught = r, true })
	}
}

// run clears the vector registers' upper state (fpu.ClearUpper) and runs
// fn, keeping its panic if it is the group's first.
func (c *catcher) run(fn func()) {
	defer c.keep()
	fpu.ClearUpper()
	fn()
}

// rethrow, once the group has finished, clears the caller's vector state
// (it may have resumed on another thread) and re-raises the first panic.
func (c *catcher) rethrow() {
	fpu.ClearUpper()
	if c.caught {
		panic(c.val)
	}
}

// team runs run(w) for w in [0, t): w = 0 on the calling goroutine, the
// others on new goroutines, and waits for all. Each worker first clears
// the vector registers' upper state (fpu.ClearUpper), and the caller
// clears it again after the wait. A panic in any worker is re-raised on
// the calling goroutine once all have finished.
func team(t int, run func(w int)) {
	if t == 1 {
		fpu.ClearUpper()
		run(0)
		return
	}
	var (
		wg sync.WaitGroup
		c  catcher
	)
	wg.Add(t - 1)
	for w := 1; w < t; w++ {
		go func() {
			defer wg.Done()
			c.run(func() { run(w) })
		}()
	}
	c.run(func() { run(0) })
	wg.Wait()
	c.rethrow()
}

// spawn starts one goroutine per iteration and waits for all of them.
func spawn(n int, body func(worker, i int)) {
	var (
		wg sync.WaitGroup
		c  catcher
	)
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
			defer c.keep()
			fpu.ClearUpper()
			body(i, i)
		}()
	}
	wg.Wait()
	c.rethrow()
}

// pool runs body for every index in [0, n) on t new goroutines that
// drain a buffered channel the caller has filled with the indices, as
// the worker-pool idiom does; the caller waits for them. A panic in any
// worker is re-raised on the caller once all have finished.
func pool(n, t int, body func(worker, i int)) {
	jobs := make(chan int, n)
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	var (
		wg sync.WaitGroup
		c  catcher
	)
	wg.Add(t)
	for w := 0; w < t; w++ {
		go func() {
			defer wg.Done()
			c.run(func() {
				for i := range jobs {
					body(w, i)
				}
			})
		}()
	}
	wg.Wait()
	c.rethrow()
}

// limited runs body(i, i) for every i in [0, n) on a goroutine of its own
// through an errgroup.Group limited to t goroutines at once: the caller
// blocks in Go while t are running. A panic in any of them is re-raised
// on the caller once all have finished (errgroup itself does not carry
// panics).
func limited(n, t int, body func(worker, i int)) {
	var (
		g errgroup.Group
		c catcher
	)
	g.SetLimit(t)
	for i := 0; i < n; i++ {
		g.Go(func() error {
			c.run(func() { body(i, i) })
			return nil
		})
	}
	_ = g.Wait() // the goroutines return no errors
	c.rethrow()
}

// Do runs every fn on its own goroutine (spawn-per-task) and returns when
// all have returned. A panic in one of them is re-raised on the caller
// after all have finished.
func Do(fns ...func()) {
	spawn(len(fns), func(_, i int) { fns[i]() })
}
