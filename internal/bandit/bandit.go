package bandit

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/cputime"

	"github.com/parallel-prophet/prophet/internal/affinity"
)

// ChunkLines is how many lines a bandit streams between looks at its
// stop flag.
const ChunkLines = 2048

// Stream loads one word from each of lines cache lines of buf, starting
// at line start and stride lines apart (wrapping around; buf's length in
// words is a power of two, wpl words per line), and does spin rounds of
// a 64-bit LCG between loads. It returns where it stopped and a value
// that depends on every load and every round, so the compiler can drop
// neither.
//
//go:noinline
func Stream(buf []uint64, start, lines, wpl, stride, spin int, x uint64) (int, uint64) {
	mask := len(buf) - 1
	var acc uint64
	step := wpl * stride
	i := start * wpl
	for n := 0; n < lines; n++ {
		acc += buf[i&mask]
		for k := 0; k < spin; k++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		i += step
	}
	return (i & mask) / wpl, acc ^ x
}

// Buffer returns a buffer of at least bytes bytes whose length in words
// is a power of two (as Stream needs), every page touched with non-zero
// data so that no load finds the zero page.
func Buffer(bytes int64) []uint64 {
	buf := make([]uint64, bufferWords(bytes))
	fill(buf, 0)
	return buf
}

// fill writes words base, base+1, ... of a buffer into b: non-zero, so
// that every page of b is the process's own, not the zero page.
func fill(b []uint64, base int) {
	for i := range b {
		b[i] = uint64(base+i) | 1
	}
}

// bufferWords is the length in words of Buffer(bytes).
func bufferWords(bytes int64) int {
	words := 1
	for int64(words)*8 < bytes {
		words *= 2
	}
	return words
}

// Counts is what one bandit did between a Start and a Stop.
type Counts struct {
	// Lines is the number of cache lines it loaded.
	Lines int64
	// BusyNs is its thread's CPU time (its wall time where the system
	// gives no thread CPU time), WallNs its wall time from the Start
	// that set it going.
	BusyNs, WallNs int64
}

// MBs returns the bandit's traffic in MB/s (10^6 bytes per second) per
// second of CPU time, for lines of lineSize bytes; 0 when it did not run.
func (c Counts) MBs(lineSize int) float64 {
	if c.BusyNs <= 0 || c.Lines <= 0 {
		return 0
	}
	return float64(c.Lines*int64(lineSize)) * 1e3 / float64(c.BusyNs)
}

// Share returns the bandit's CPU time over its wall time: near 1 when it
// had a core to itself, lower when it was starved.
func (c Counts) Share() float64 {
	if c.WallNs <= 0 {
		return 0
	}
	return float64(c.BusyNs) / float64(c.WallNs)
}

// Options shape a Gang's bandits.
type Options struct {
	// CPUs pins bandit i to CPUs[i] (where the system allows); nil or
	// a negative entry leaves that bandit unpinned.
	CPUs []int
	// LineSize is the cache line size in bytes (default 64).
	LineSize int
	// StrideLines is the distance in lines between consecutive loads
	// (default 1: sequential, with the prefetchers' help; odd).
	StrideLines int
	// LastShares makes NewLazyGang's last bandit stream the first one's
	// buffer, starting half a buffer ahead of where the first starts,
	// instead of making a buffer of its own (it touches half of the
	// first one's pages meanwhile, so the buffer is ready in about half
	// the time where two cores are free). It is for a last bandit that
	// only ever streams beside the first (Start and StreamFor take the
	// first n): the two then cover the buffer between them once per
	// sweep, as one bandit alone does, so neither finds the other's lines
	// in a cache they share, and neither finds its own in a cache it has
	// to itself, while the gang touches one buffer's pages fewer.
	LastShares bool
}

// Gang is a set of bandits, each parked on a locked thread of its own
// with its own buffer until Start. Its methods must not be called
// concurrently with each other.
type Gang struct {
	workers   []*worker
	wpl       int
	stride    int
	stop      atomic.Bool
	streaming atomic.Int32 // bandits that have begun streaming since Start
	built     atomic.Int32 // bandits that have their buffer
	running   int
	halfLines int // half a lazy buffer, in lines (Options.LastShares)
	sink      atomic.Uint64
	wg        sync.WaitGroup
}

type worker struct {
	buf    []uint64
	shares *worker       // the worker whose buffer this one streams (Options.LastShares)
	help   chan []uint64 // on the worker shared: its buffer to the sharer, and back once the sharer touched the second half
	at     atomic.Int64  // the line where the last job stopped
	cpu    int           // the CPU the thread is pinned to (-1: none)
	start  chan work     // closed by Close
	done   chan Counts
	pin    string // why the thread is not pinned, if it is not
	free   func() // gives back a buffer the worker made (nil: none)
}

// work is one Start's order to a bandit.
type work struct {
	spin  int
	cpu   int   // pin to this CPU first (-1: stay where it is)
	t0    int64 // when Start was called (clock.Now)
	until int64 // stop by itself at this clock.Now (0: at Stop)
	from  int   // start at this line (-1: where the last job stopped)
}

// NewGang parks one bandit per buffer of bufs. Close releases them.
func NewGang(bufs [][]uint64, opt Options) *Gang {
	return newGang(bufs, 0, opt)
}

// NewLazyGang parks n bandits that each make their own buffer of bytes
// bytes on their own thread, outside the Go heap where the system
// allows, so that the caller goes on at once while they touch their
// pages (the last shares the first's with Options.LastShares); Ready
// reports when every one has its buffer. Close releases them and their
// buffers.
func NewLazyGang(n int, bytes int64, opt Options) *Gang {
	return newGang(make([][]uint64, n), bytes, opt)
}

// Ready reports whether every bandit has its buffer.
func (g *Gang) Ready() bool { return int(g.built.Load()) == len(g.workers) }

func newGang(bufs [][]uint64, bytes int64, opt Options) *Gang {
	line := opt.LineSize
	if line <= 0 {
		line = 64
	}
	g := &Gang{wpl: max(line/8, 1), stride: max(opt.StrideLines, 1) | 1}
	g.halfLines = bufferWords(bytes) / g.wpl / 2
	ready := make(chan struct{}, len(bufs))
	for i, b := range bufs {
		w := &worker{buf: b, cpu: -1, start: make(chan work), done: make(chan Counts, 1)}
		if i < len(opt.CPUs) && opt.CPUs[i] >= 0 {
			w.cpu = opt.CPUs[i]
		}
		g.workers = append(g.workers, w)
	}
	if n := len(g.workers); opt.LastShares && bytes > 0 && n > 1 {
		g.workers[n-1].shares = g.workers[0]
		g.workers[0].help = make(chan []uint64)
	}
	for i, w := range g.workers {
		g.wg.Add(1)
		go g.loop(w, i, bytes, ready)
	}
	for range bufs {
		<-ready
	}
	return g
}

// Size returns the number of bandits.
func (g *Gang) Size() int { return len(g.workers) }

// PinNote says why a bandit's thread could not be pinned to its CPU
// ("" when every one that was given a CPU is pinned).
func (g *Gang) PinNote() string {
	for _, w := range g.workers {
		if w.pin != "" {
			return w.pin
		}
	}
	return ""
}

// loop is bandit w's thread.
func (g *Gang) loop(w *worker, i int, bytes int64, ready chan<- struct{}) {
	defer g.wg.Done()
	// Locked and never unlocked: the thread ends with the goroutine,
	// rather than going back to the runtime bound to one CPU, where it
	// would confine whatever goroutine ran on it next.
	runtime.LockOSThread()
	if w.cpu >= 0 {
		w.pin = affinity.PinThread(w.cpu)
	}
	ready <- struct{}{}
	switch {
	case w.buf != nil:
	case w.shares != nil:
		// The first bandit's buffer: touch its second half, hand it back.
		buf := <-w.shares.help
		half := len(buf) / 2
		fill(buf[half:], half)
		w.shares.help <- buf
		w.buf = buf
	case w.help != nil:
		buf, free := mapWords(bufferWords(bytes))
		w.free = free
		w.help <- buf
		fill(buf[:len(buf)/2], 0)
		<-w.help
		w.buf = buf
	default:
		w.buf, w.free = mapWords(bufferWords(bytes))
		fill(w.buf, 0)
	}
	g.built.Add(1)
	readyAt := clock.Now()
	pos, x, acc := 0, uint64(i+1), uint64(0)
	lines := max(len(w.buf)/g.wpl, 1)
	for job := range w.start {
		if job.cpu >= 0 && job.cpu != w.cpu {
			w.cpu = job.cpu
			w.pin = affinity.PinThread(job.cpu)
		}
		if job.from >= 0 {
			pos = job.from % lines
		}
		spin := job.spin
		c0, cpuOK := cputime.Thread()
		g.streaming.Add(1)
		// The wall time counts from Start, or from when the bandit had
		// its buffer if that came later (a Start before then waits for
		// it, and so does its deadline): a bandit whose thread waited
		// for a core meanwhile shows it in its Share, one that was still
		// touching its pages does not.
		t0 := max(job.t0, readyAt)
		until := job.until
		if until != 0 {
			until += t0 - job.t0
		}
		var streamed int64
		now := t0
		for !g.stop.Load() && (until == 0 || now < until) {
			var a uint64
			pos, a = Stream(w.buf, pos, ChunkLines, g.wpl, g.stride, spin, x)
			acc += a
			x++
			streamed += ChunkLines
			if until != 0 {
				now = clock.Now()
			}
		}
		w.at.Store(int64(pos))
		c := Counts{Lines: streamed, WallNs: clock.Now() - t0}
		c.BusyNs = c.WallNs
		if c1, ok := cputime.Thread(); ok && cpuOK && c1 >= c0 {
			c.BusyNs = min(c1-c0, c.WallNs)
		}
		w.done <- c
	}
	g.sink.Add(acc)
}

// Start sets the first n bandits streaming with spin rounds of
// register-only work per line loaded (0: as fast as memory allows), and
// returns once every one of them has begun. A Start must be followed by
// Stop before the next Start.
func (g *Gang) Start(n, spin int) { g.StartOn(n, spin, nil) }

// StartOn is Start with bandit i pinned to cpus[i] first, where cpus
// has an entry for it that is not negative.
func (g *Gang) StartOn(n, spin int, cpus []int) { g.start(n, spin, cpus, 0, true) }

// StartUntil is StartOn with the bandits stopping by themselves after d
// if Stop has not stopped them before.
func (g *Gang) StartUntil(n, spin int, cpus []int, d time.Duration) { g.start(n, spin, cpus, d, true) }

// StreamFor sets the first n bandits streaming with spin rounds per
// line, pinned as StartOn pins them, each for d and then no longer, and
// returns what they did: the caller waits without needing a processor
// meanwhile, so the bandits may take every one. They are set going and
// collected from a goroutine of StreamFor's own: set going from a
// goroutine locked to its thread (as a recording keeps the program's),
// one of two bandits was often left without a core for most of d.
func (g *Gang) StreamFor(n, spin int, cpus []int, d time.Duration) []Counts {
	var out []Counts
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.start(n, spin, cpus, d, false)
		out = g.collect()
	}()
	<-done
	return out
}

// start sets the first n bandits streaming, each for at most d (0: until
// Stop), and with wait returns once every one has begun.
func (g *Gang) start(n, spin int, cpus []int, d time.Duration, wait bool) {
	n = min(max(n, 0), len(g.workers))
	g.stop.Store(false)
	g.streaming.Store(0)
	t0 := clock.Now()
	until := int64(0)
	if d > 0 {
		until = t0 + d.Nanoseconds()
	}
	// Half a buffer ahead of where the first starts, read before any
	// bandit is set going: the first may have finished its job before
	// the last receives its own.
	ahead := g.halfLines
	if len(g.workers) > 0 {
		ahead += int(g.workers[0].at.Load())
	}
	for i, w := range g.workers[:n] {
		cpu := -1
		if i < len(cpus) {
			cpu = cpus[i]
		}
		from := -1
		if w.shares != nil {
			from = ahead
		}
		w.start <- work{spin: spin, cpu: cpu, t0: t0, until: until, from: from}
	}
	// Spun on, not yielded: a goroutine locked to its thread that
	// yields to the bandits it set going (as a recording's is) gave its
	// processor to them and waited milliseconds to get one back. A
	// start that takes longer than spinFor yields, so that one processor
	// can still run the bandits.
	for wait && int(g.streaming.Load()) < n {
		if clock.Now()-t0 > spinFor {
			runtime.Gosched()
		}
	}
	g.running = n
}

// spinFor is how long start spins, at most, waiting for its bandits to
// begin before it yields.
const spinFor = 500_000

// Stop stops the bandits the last Start started and returns what each
// did.
func (g *Gang) Stop() []Counts {
	g.stop.Store(true)
	return g.collect()
}

// collect waits for the bandits the last start started to stop and
// returns what each did.
func (g *Gang) collect() []Counts {
	out := make([]Counts, g.running)
	for i, w := range g.workers[:g.running] {
		out[i] = <-w.done
	}
	g.running = 0
	return out
}

// Close stops any bandits still streaming and ends their threads.
func (g *Gang) Close() {
	if g.running > 0 {
		g.Stop()
	}
	for _, w := range g.workers {
		close(w.start)
	}
	g.wg.Wait()
	for _, w := range g.workers {
		if w.free != nil {
			w.free()
			w.free = nil
		}
		w.buf = nil
	}
}

// Total returns the summed lines, busy and wall nanoseconds of cs.
func Total(cs []Counts) Counts {
	var t Counts
	for _, c := range cs {
		t.Lines += c.Lines
		t.BusyNs += c.BusyNs
		t.WallNs += c.WallNs
	}
	return t
}
