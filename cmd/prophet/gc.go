package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// predictGCPercent is the garbage collector's target percentage while
// predictAll runs its sweep (for predict, report and the demo), unless
// GOGC is set: a prediction's heap is a few megabytes, so at Go's
// default of 100 the collector runs two or three times during a sweep of
// a fraction of a second, and while it marks, it takes a core from the
// emulations.
const predictGCPercent = 400

// predictMemoryFloor is the soft memory limit while predictAll relaxes
// the garbage collector, as long as the live heap stays under the limit
// divided by predictLiveFactor: a relaxed collector lets the heap grow to
// five times what is live (the full predict of a regular loop of 10^8
// tasks took 73 MB without a limit).
const predictMemoryFloor = 32 << 20

// predictLiveFactor: where the live heap grows past two thirds of the
// limit (a profile whose compact copies and ready queues take tens of
// megabytes), the limit follows it at one and a half times that, so
// that the collector does not run all the time to stay under it, and
// the process stays within about one and a half times what it needs
// (the runtime's own memory comes on top).
const predictLiveFactor = 1.5

// liveHeap is the runtime metric of the bytes a finished collection
// found live.
const liveHeap = "/gc/heap/live:bytes"

// relaxedGC is the collector's setting while predictAll runs.
type relaxedGC struct {
	on              bool
	oldPercent      int
	oldLimit, limit int64
	sample          []metrics.Sample
}

// relaxGC sets the garbage collector's target percentage to
// predictGCPercent, under the soft limit predictMemoryFloor, unless the
// GOGC or GOMEMLIMIT environment variable chooses.
func relaxGC() *relaxedGC {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if gogc || limit {
		return &relaxedGC{}
	}
	r := &relaxedGC{on: true, limit: predictMemoryFloor, sample: []metrics.Sample{{Name: liveHeap}}}
	r.oldPercent = debug.SetGCPercent(predictGCPercent)
	r.oldLimit = debug.SetMemoryLimit(r.limit)
	return r
}

// follow raises the soft limit to predictLiveFactor times the live heap,
// where that is above it; call it now and then (after each prediction).
func (r *relaxedGC) follow() {
	if !r.on {
		return
	}
	metrics.Read(r.sample)
	if r.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if want := int64(predictLiveFactor * float64(r.sample[0].Value.Uint64())); want > r.limit {
		r.limit = want
		debug.SetMemoryLimit(want)
	}
}

// restore puts the collector's setting back as it was.
func (r *relaxedGC) restore() {
	if !r.on {
		return
	}
	debug.SetGCPercent(r.oldPercent)
	debug.SetMemoryLimit(r.oldLimit)
}
