package calibrate

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/fpu"
	"github.com/parallel-prophet/prophet/internal/robust"
)

// Compute-inflation measurement: rounds per thread count, and the work of
// one compute loop (about 10 ms on a 2.6 GHz core).
const (
	computeRounds = 11
	computeIters  = 4 << 20
)

// computeSink keeps the compute loop's result alive.
var computeSink sync.Map

// computeLoop is compute-bound work that touches no memory: a chain of
// floating-point multiply-adds and a square root.
func computeLoop(iters int) float64 {
	x, y := 1.0, 0.5
	for i := 0; i < iters; i++ {
		x = x*0.9999999 + y
		y = math.Sqrt(y*y + 1e-9)
	}
	return x + y
}

// MeasureCompute measures κ_t, the compute inflation, for every thread
// count t from 1 to maxThreads (at most the cores): t goroutines, each on
// its own OS thread, run the same compute-bound loop at once, and κ_t is
// their mean time over the time of one running alone just before them:
// the median of that ratio over computeRounds rounds. Each ratio is of
// two runs a few milliseconds apart, so a slow stretch of a shared
// machine falls on both of them, not on one side of the ratio only.
// κ_1 is 1 by definition.
func MeasureCompute(ctx context.Context, maxThreads int, progress func(done, total int)) (map[int]float64, error) {
	maxThreads = min(max(maxThreads, 1), runtime.NumCPU())
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(maxThreads))
	round := func(t int) float64 {
		times := make([]int64, t)
		var ready, done sync.WaitGroup
		start := make(chan struct{})
		ready.Add(t)
		done.Add(t)
		for w := range t {
			go func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				defer done.Done()
				ready.Done()
				<-start
				fpu.ClearUpper() // full speed, as par's workers run
				t0 := clock.Now()
				computeSink.Store(w, computeLoop(computeIters))
				times[w] = clock.Now() - t0
			}()
		}
		ready.Wait()
		close(start)
		done.Wait()
		var sum int64
		for _, d := range times {
			sum += d
		}
		return float64(sum) / float64(t)
	}
	out := map[int]float64{1: 1}
	round(1) // warm up
	for t := 2; t <= maxThreads; t++ {
		ratios := make([]float64, computeRounds)
		for i := range ratios {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			alone := round(1)
			ratios[i] = round(t) / alone
		}
		out[t] = max(1, robust.Median(ratios))
		if progress != nil {
			progress(t-1, maxThreads-1)
		}
	}
	return out, nil
}
