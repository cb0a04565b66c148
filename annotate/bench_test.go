package annotate

import (
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

var sinkInt int64

// BenchmarkClock reads each candidate clock once per op, side by side with
// BenchmarkEvent.
func BenchmarkClock(b *testing.B) {
	b.Run("clock.Now", func(b *testing.B) {
		for b.Loop() {
			sinkInt += clock.Now()
		}
	})
	b.Run("time.Now", func(b *testing.B) {
		for b.Loop() {
			sinkInt += time.Now().UnixNano()
		}
	})
	b.Run("clock.Ticks", func(b *testing.B) {
		for b.Loop() {
			sinkInt += clock.Ticks()
		}
	})
}

// BenchmarkEvent measures one recording annotation call (a TaskBegin and
// a TaskEnd per op, reported per call as ns/call), with each clock.
func BenchmarkEvent(b *testing.B) {
	for _, c := range []string{profiler.ClockAuto, profiler.ClockNanotime} {
		b.Run(c, func(b *testing.B) {
			var cost float64
			_, err := RecordWith(profiler.Options{Clock: c}, func() {
				cost = rec.p.Load().EventCostNs()
				SecBegin("bench")
				b.ResetTimer()
				for b.Loop() {
					TaskBegin("t")
					TaskEnd()
				}
				b.StopTimer()
				SecEnd(false)
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/call")
			b.ReportMetric(cost, "calibrated-ns/event")
		})
	}
}

// BenchmarkDisabled measures an annotation call with recording off.
func BenchmarkDisabled(b *testing.B) {
	if Recording() {
		b.Skip("recording is on")
	}
	// A counted loop, not b.Loop: calls inside b.Loop are not inlined,
	// and the point is the inlined load and branch that programs get.
	for range b.N {
		TaskBegin("t")
	}
}

// spinIters does n iterations of dependent integer work.
//
//go:noinline
func spinIters(n int) int64 {
	x := int64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// itersFor returns how many spinIters iterations take about d.
func itersFor(d time.Duration) int {
	n := 1 << 16
	for {
		t0 := clock.Now()
		sinkInt += spinIters(n)
		el := clock.Now() - t0
		if el > int64(2*time.Millisecond) {
			return int(float64(n) * float64(d) / float64(el))
		}
		n *= 2
	}
}

// BenchmarkLoop10us runs loops of tasks of about 10 µs each while
// recording: chunks of 100 plain tasks (no annotation calls) alternate
// with chunks of 100 annotated tasks (a section), so machine load hits
// both alike. It reports medians over chunks (robust to a chunk that
// was preempted) of the annotated chunk's time over the plain one's
// (slowdown, goal ≤ 1.05) and of the relative error of the section's
// work in the tree against the plain chunk's time (work-err, goal within
// ±0.01); total-err is the same error over all chunks together.
func BenchmarkLoop10us(b *testing.B) {
	const chunks, tasks = 20, 100
	iters := itersFor(10 * time.Microsecond)
	var slow, werr []float64
	var work, plain int64
	for b.Loop() {
		var plains []int64
		tr, err := Record(func() {
			for range chunks {
				t0 := clock.Now()
				for range tasks {
					sinkInt += spinIters(iters)
				}
				t1 := clock.Now()
				SecBegin("loop")
				for range tasks {
					TaskBegin("task")
					sinkInt += spinIters(iters)
					TaskEnd()
				}
				SecEnd(false)
				t2 := clock.Now()
				slow = append(slow, float64(t2-t1)/float64(t1-t0))
				plains = append(plains, t1-t0)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		var k int
		for c := range tr.Root.Expanded() {
			if c.Kind != tree.KindSec || k >= len(plains) {
				continue
			}
			w := tree.Work(c) / c.Reps()
			werr = append(werr, float64(w-plains[k])/float64(plains[k]))
			work += w
			plain += plains[k]
			k++
		}
		if k != chunks {
			b.Fatalf("%d sections in the tree, want %d", k, chunks)
		}
	}
	b.ReportMetric(robust.Median(slow), "slowdown")
	b.ReportMetric(robust.Median(werr), "work-err")
	b.ReportMetric(float64(work-plain)/float64(plain), "total-err")
}
