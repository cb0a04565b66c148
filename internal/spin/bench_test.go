package spin

import (
	"fmt"
	"slices"
	"testing"

	"github.com/parallel-prophet/prophet/internal/clock"
)

// accuracyLengths are the requested delays the accuracy benchmarks report.
var accuracyLengths = []int64{0, 100, 500, 1000, 5000, 10000, 100000, 1000000}

// benchAccuracy times fn(ns) b.N times and reports the mean and median
// actual wall length and the errors against the request: err_ns is
// median−requested, err_pct its share of the request. The request 0
// shows the harness's own cost (two clock reads and a call), which every
// other line includes.
//
// For functions that return the running time they counted (For), ran_err_ns
// is the mean counted time less the request: the delay's accuracy as
// computation, whatever the machine's load did to its wall time.
func benchAccuracy(b *testing.B, ns int64, fn func(int64) int64) {
	samples := make([]int64, 0, b.N)
	var ran int64
	for b.Loop() {
		start := clock.Now()
		ran += fn(ns)
		samples = append(samples, clock.Now()-start)
	}
	if ran > 0 {
		b.ReportMetric(float64(ran)/float64(len(samples))-float64(ns), "ran_err_ns")
	}
	var sum float64
	for _, s := range samples {
		sum += float64(s)
	}
	slices.Sort(samples)
	med := float64(samples[len(samples)/2])
	mean := sum / float64(len(samples))
	b.ReportMetric(mean, "mean_ns")
	b.ReportMetric(med, "median_ns")
	b.ReportMetric(mean-float64(ns), "mean_err_ns")
	b.ReportMetric(med-float64(ns), "med_err_ns")
	if ns > 0 {
		b.ReportMetric(100*(med-float64(ns))/float64(ns), "med_err_pct")
	}
}

// BenchmarkFor measures how long For(ns) really takes, end to end as a
// caller sees it (call, first clock read, loop, overshoot).
func BenchmarkFor(b *testing.B) {
	for _, ns := range accuracyLengths {
		b.Run(fmt.Sprint(ns), func(b *testing.B) {
			benchAccuracy(b, ns, For)
		})
	}
}

// BenchmarkWall is the same for the plain clock loop, for comparison.
func BenchmarkWall(b *testing.B) {
	for _, ns := range accuracyLengths {
		b.Run(fmt.Sprint(ns), func(b *testing.B) {
			benchAccuracy(b, ns, func(ns int64) int64 { Wall(ns); return 0 })
		})
	}
}

// calibratedLoop is the other design the package considered: a loop of
// register-only iterations, calibrated once against the clock, topped up
// with the clock for the remainder. Kept here so its accuracy can be
// compared with For's (BenchmarkCalibrated).
func calibratedLoop(perIterNs float64) func(int64) int64 {
	return func(ns int64) int64 {
		start := clock.Now()
		iters := int64(float64(ns) * 0.9 / perIterNs)
		x := uint64(1)
		for i := int64(0); i < iters; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		sink(x)
		for clock.Now()-start < ns {
		}
		return 0
	}
}

//go:noinline
func sink(uint64) {}

func calibrate() float64 {
	const iters = 50_000_000
	start := clock.Now()
	x := uint64(1)
	for i := 0; i < iters; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink(x)
	return float64(clock.Now()-start) / iters
}

// BenchmarkCalibrated measures the calibrated-loop design.
func BenchmarkCalibrated(b *testing.B) {
	loop := calibratedLoop(calibrate())
	for _, ns := range accuracyLengths {
		b.Run(fmt.Sprint(ns), func(b *testing.B) {
			benchAccuracy(b, ns, loop)
		})
	}
}
