package calibrate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/machine"
)

// Sample is one run of the memory microbenchmark: Threads workers at once,
// each streaming over its own buffer with Spin rounds of register-only
// work per cache line loaded.
type Sample struct {
	Threads int `json:"threads"`
	Spin    int `json:"spin"`
	// TotalMBs is the traffic of all workers together and PerThreadMBs
	// their mean, in MB/s (10^6 bytes per second), counted from the
	// cache lines the benchmark loaded.
	TotalMBs     float64 `json:"total_mbs"`
	PerThreadMBs float64 `json:"per_thread_mbs"`
	// NsPerLine is the mean time per line loaded; ComputeNsPerLine the
	// time per line of the same loop over a cache-resident buffer (the
	// pure compute cost).
	NsPerLine        float64 `json:"ns_per_line"`
	ComputeNsPerLine float64 `json:"compute_ns_per_line"`
	// StallCycles is ω, the stall cycles per DRAM access:
	// (NsPerLine − ComputeNsPerLine) · FreqGHz.
	StallCycles float64 `json:"stall_cycles"`
	// CPUShare is the workers' mean CPU time over wall time: near 1 on
	// an otherwise idle machine, lower when other processes took cores.
	// Traffic and times are per CPU-second, so they do not count time a
	// worker was descheduled, but contention between workers that did
	// not run at once is missed.
	CPUShare float64 `json:"cpu_share"`
}

// DefaultSpins are the spin rounds per line of the traffic levels: 0 is
// pure streaming (the most traffic one thread makes), larger values
// lower the traffic.
var defaultSpins = []int{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48}

// DefaultSpins returns the default traffic levels (spin rounds per line).
func DefaultSpins() []int { return append([]int(nil), defaultSpins...) }

// memBench holds the buffers of the microbenchmark.
type memBench struct {
	bufs  [][]uint64 // one per worker, ≫ last-level cache
	small []uint64   // cache-resident, for the compute reference
	opt   bandit.Options
}

func newMemBench(workers int, bufBytes int64, lineSize, stride int) *memBench {
	b := &memBench{opt: bandit.Options{LineSize: lineSize, StrideLines: stride}}
	for w := 0; w < workers; w++ {
		b.bufs = append(b.bufs, bandit.Buffer(bufBytes))
	}
	b.small = bandit.Buffer(16 << 10) // stays in L1
	return b
}

// run streams with threads workers at once for about d and returns each
// worker's lines, its busy nanoseconds (the OS thread's CPU time where
// available, so time other processes took from the core does not count)
// and its wall nanoseconds.
func (b *memBench) run(ctx context.Context, threads, spin int, d time.Duration) (lines, busy, wall []int64) {
	return b.runOn(ctx, b.bufs[:threads], spin, d)
}

// runOn is run with worker w streaming over bufs[w].
func (b *memBench) runOn(ctx context.Context, bufs [][]uint64, spin int, d time.Duration) (lines, busy, wall []int64) {
	g := bandit.NewGang(bufs, b.opt)
	defer g.Close()
	g.Start(len(bufs), spin)
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
	for _, c := range g.Stop() {
		lines = append(lines, c.Lines)
		busy = append(busy, c.BusyNs)
		wall = append(wall, c.WallNs)
	}
	return lines, busy, wall
}

// compute measures the time per line of the same loop over the
// cache-resident buffer, single-threaded, for about d, the same way run
// measures the streaming (mean CPU time per line).
func (b *memBench) compute(ctx context.Context, spin int, d time.Duration) float64 {
	lines, busy, _ := b.runOn(ctx, [][]uint64{b.small}, spin, d)
	if lines[0] == 0 {
		return 0
	}
	return float64(busy[0]) / float64(lines[0])
}

// MemoryOptions tune the memory calibration.
type MemoryOptions struct {
	// Threads are the thread counts to measure besides 1 (default 2 up
	// to the number of CPUs).
	Threads []int
	// Spins are the traffic levels (default DefaultSpins()).
	Spins []int
	// Duration is the time budget of the whole measurement (default 40 s).
	Duration time.Duration
	// BufferBytes is each worker's buffer (default 4× the last-level
	// cache, at least 64 MiB and at most 256 MiB).
	BufferBytes int64
	// StrideLines is the distance in lines between consecutive loads:
	// 1 (the default) streams sequentially, as streaming kernels do, with
	// the hardware prefetchers' help; an odd number such as 4099 visits
	// the lines in a scattered order that defeats the prefetchers (the
	// paper's assumption 3(d)), at the cost of a TLB miss per load.
	StrideLines int
	// LineSize is the cache line size in bytes (default 64).
	LineSize int
	// FreqGHz converts time to cycles (default: the CPU's reported clock).
	FreqGHz float64
	// Progress is called after each run with the runs done and in all.
	Progress func(done, total int)
}

// MeasureMemory runs the memory microbenchmark of section V-D and fits
// Ψ_t for every thread count of opt.Threads and Φ. It returns the fits and
// every sample measured. Traffic is counted from the lines the benchmark
// loads, so no hardware counters are needed.
func MeasureMemory(ctx context.Context, opt MemoryOptions) (*machine.Memory, []Sample, error) {
	sys := ReadSystem()
	if opt.LineSize <= 0 {
		opt.LineSize = sys.LineSize
	}
	if opt.FreqGHz <= 0 {
		opt.FreqGHz = sys.FreqGHz
	}
	if len(opt.Threads) == 0 {
		for t := 2; t <= sys.Cores; t++ {
			opt.Threads = append(opt.Threads, t)
		}
	}
	threads := []int{1}
	for _, t := range opt.Threads {
		if t > 1 && !slices.Contains(threads, t) {
			threads = append(threads, t)
		}
	}
	sort.Ints(threads)
	if len(opt.Spins) == 0 {
		opt.Spins = DefaultSpins()
	}
	if opt.Duration <= 0 {
		opt.Duration = 40 * time.Second
	}
	if opt.BufferBytes <= 0 {
		opt.BufferBytes = min(max(4*sys.LLCBytes, 64<<20), 256<<20)
	}
	maxT := threads[len(threads)-1]
	b := newMemBench(maxT, opt.BufferBytes, opt.LineSize, opt.StrideLines)

	runs := len(opt.Spins) * len(threads)
	// A fifth of each level's time goes to the compute reference.
	perLevel := opt.Duration / time.Duration(len(opt.Spins))
	ref := perLevel / 5
	perRun := (perLevel - ref) / time.Duration(len(threads))
	done := 0
	var samples []Sample
	for _, spin := range opt.Spins {
		cns := b.compute(ctx, spin, ref)
		for _, t := range threads {
			if err := ctx.Err(); err != nil {
				return nil, samples, fmt.Errorf("memory calibration: %w", err)
			}
			lines, ns, wall := b.run(ctx, t, spin, perRun)
			s := Sample{Threads: t, Spin: spin, ComputeNsPerLine: cns}
			for w := range lines {
				if ns[w] <= 0 || lines[w] == 0 {
					continue
				}
				s.TotalMBs += float64(lines[w]*int64(opt.LineSize)) * 1e3 / float64(ns[w])
				s.NsPerLine += float64(ns[w]) / float64(lines[w]) / float64(t)
				s.CPUShare += float64(ns[w]) / float64(wall[w]) / float64(t)
			}
			s.PerThreadMBs = s.TotalMBs / float64(t)
			s.StallCycles = (s.NsPerLine - cns) * opt.FreqGHz
			samples = append(samples, s)
			done++
			if opt.Progress != nil {
				opt.Progress(done, runs)
			}
		}
	}
	m, err := FitMemory(samples, opt.FreqGHz)
	return m, samples, err
}

// FitMemory fits the machine's memory model to benchmark samples: for
// each thread count t > 1, Ψ_t of the total traffic of t threads against
// the traffic of one thread alone at the same spin level (the better of
// linear and logarithmic by R²); and Φ, a power law of the stall cycles
// per access against the per-thread traffic, over every sample with a
// positive stall cost. MinTrafficMBs is the smallest single-thread
// traffic measured.
func FitMemory(samples []Sample, freqGHz float64) (*machine.Memory, error) {
	alone := map[int]float64{}
	for _, s := range samples {
		if s.Threads == 1 && s.TotalMBs > 0 {
			alone[s.Spin] = s.TotalMBs
		}
	}
	if len(alone) < 2 {
		return nil, fmt.Errorf("fitting memory model: %w of single-thread traffic", errFewPoints)
	}
	m := &machine.Memory{Psi: map[int]machine.Fit{}, FreqGHz: freqGHz, MinTrafficMBs: math.Inf(1)}
	for _, v := range alone {
		m.MinTrafficMBs = min(m.MinTrafficMBs, v)
	}
	xs, ys := map[int][]float64{}, map[int][]float64{}
	var px, py []float64
	for _, s := range samples {
		if s.StallCycles > 0 && s.PerThreadMBs > 0 {
			px = append(px, s.PerThreadMBs)
			py = append(py, s.StallCycles)
		}
		d1, ok := alone[s.Spin]
		if s.Threads <= 1 || !ok || s.TotalMBs <= 0 {
			continue
		}
		xs[s.Threads] = append(xs[s.Threads], d1)
		ys[s.Threads] = append(ys[s.Threads], s.TotalMBs)
	}
	for t := range xs {
		f, err := FitBest(xs[t], ys[t])
		if err != nil {
			return nil, fmt.Errorf("fitting Ψ_%d: %w", t, err)
		}
		m.Psi[t] = f
	}
	phi, err := FitPower(px, py)
	if err != nil {
		return nil, fmt.Errorf("fitting Φ (%d samples with a positive stall cost): %w", len(px), err)
	}
	m.Phi = phi
	return m, nil
}
