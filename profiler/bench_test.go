package profiler

import (
	"time"

	"testing"

	"github.com/parallel-prophet/prophet/internal/clock"

	"github.com/parallel-prophet/prophet/tree"
)

// BenchmarkEventCost reports the calibrated per-event cost (the part of
// an event that lies between two clock reads: what the program sees) for
// each clock.
func BenchmarkEventCost(b *testing.B) {
	for _, tt := range []struct {
		name string
		tsc  bool
	}{{"tsc", true}, {"nanotime", false}} {
		b.Run(tt.name, func(b *testing.B) {
			var c float64
			for b.Loop() {
				c = measureEventCost(tt.tsc)
			}
			rate := 1.0
			if tt.tsc {
				rate = clock.MeasureTickRate(10 * time.Millisecond)
			}
			b.ReportMetric(c*rate, "ns/event")
		})
	}
}

// BenchmarkBuild is the tree builder's share of an event: the same
// stream of a section of tasks of about 1 µs each, fed straight to a
// tree.Builder, per event.
func BenchmarkBuild(b *testing.B) {
	bl := tree.NewBuilder(tree.BuildOptions{})
	bl.BeginSec("s")
	i := int64(0)
	for b.Loop() {
		bl.BeginTask("t")
		bl.U(1000 + i%7)
		bl.EndTask()
		i++
	}
	bl.EndSec(false, nil)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/event")
}

// BenchmarkRecord is a whole recording event (the clock read and store,
// plus the amortized tree building) through the Profiler's methods.
func BenchmarkRecord(b *testing.B) {
	p, err := Start(Options{NoCounters: true})
	if err != nil {
		b.Fatal(err)
	}
	p.SecBegin("s")
	for b.Loop() {
		p.TaskBegin("t")
		spinN(20)
		p.TaskEnd()
	}
	p.SecEnd(false)
	if _, err := p.Stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/event")
}

//go:noinline
func spinN(n int) int {
	x := 1
	for i := 0; i < n; i++ {
		x = x*31 + i
	}
	return x
}

// BenchmarkDrain is the profiler's share of an event without the clock,
// in the steady state: a buffer of TaskBegin/TaskEnd records of one
// section, stamped as a recording would stamp them (empty: every interval
// one event's cost, so the tasks are empty; 1us: tasks of about 1 µs),
// is checked and built into the tree again and again, every task joining
// the run before it. It reports ns per event.
func BenchmarkDrain(b *testing.B) {
	for _, tt := range []struct {
		name string
		work int64 // ticks of work inside each task
	}{{"empty", 0}, {"1us", 3000}} {
		b.Run(tt.name, func(b *testing.B) {
			p, err := Start(Options{NoCounters: true, NoPin: true, EventCostNs: 10})
			if err != nil {
				b.Fatal(err)
			}
			p.setRate(1.0/3, 10) // 3 GHz, 30 ticks an event
			p.SecBegin("s")
			p.flush()
			t := int64(0)
			for i := range p.buf {
				r := &p.buf[i]
				r.from = t
				t += 30 // the event's cost
				r.op = opTaskBegin
				r.name = "t"
				if i%2 == 1 {
					r.op = opTaskEnd
					r.name = ""
					if tt.work > 0 {
						t += tt.work + int64(i*13%17) // within the tolerance
					}
				}
				r.t = t
			}
			events := 0
			for b.Loop() {
				p.n = bufLen // drain leaves the records as they are
				p.drain()
				events += bufLen
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			p.SecEnd(false)
			if _, err := p.Stop(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
