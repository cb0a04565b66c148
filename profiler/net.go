package profiler

import (
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/internal/gid"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
)

// fracBits is the number of fractional bits of the fixed-point lengths.
const fracBits = 32

// setRate sets the clock's rate and the per-event cost, rounded to the
// fixed point (2^-32 ns) that net computes in, so that net and the
// floating-point totals (MeasuredNs) use the very same values.
func (p *Profiler) setRate(nsPerTick, costNs float64) {
	const one = 1 << fracBits
	p.tickQ = max(1, int64(math.Round(nsPerTick*one)))
	p.costQ = max(0, int64(math.Round(costNs*one)))
	p.rawMax = (1 << 62) / p.tickQ
	p.nsPerTick = float64(p.tickQ) / one
	p.costNs = float64(p.costQ) / one
	p.costTicks = p.costNs / p.nsPerTick
}

// net converts a raw interval of ticks to net nanoseconds: the per-event
// cost subtracted, clamped at zero, and rounded down with the fraction
// carried to the next interval, so that totals stay exact. It computes in
// integers (2^-32 ns): the carry is the one value that each event's net
// length waits for, and an integer add is a much shorter wait than the
// floating-point round trip.
func (p *Profiler) net(raw int64) int64 {
	if raw > p.rawMax {
		return p.netLong(raw)
	}
	v := raw*p.tickQ - p.costQ + p.fracQ
	if v < 0 {
		p.fracQ = 0
		return 0
	}
	p.fracQ = v & (1<<fracBits - 1)
	return v >> fracBits
}

// netLong is net for an interval so long (about a third of a second or
// more) that raw·tickQ needs 128 bits.
func (p *Profiler) netLong(raw int64) int64 {
	hi, lo := bits.Mul64(uint64(raw), uint64(p.tickQ))
	var c uint64
	lo, c = bits.Add64(lo, uint64(p.fracQ), 0)
	hi += c
	lo, c = bits.Sub64(lo, uint64(p.costQ), 0) // raw·tickQ ≥ 2^62 > costQ
	hi -= c
	p.fracQ = int64(lo & (1<<fracBits - 1))
	return int64(hi<<(64-fracBits) | lo>>fracBits)
}

// measureEventCost returns the profiler's own cost per event, in clock
// ticks: the median, over batches, of the mean interval between
// consecutive events with no work between them, recorded by the same
// code path into a scratch profiler that builds no tree.
func measureEventCost(tsc bool) float64 {
	const batches, pairs = 31, 100 // 2*pairs < bufLen: no flush
	s := &Profiler{tsc: tsc}
	s.owner.Store(gid.G())
	means := make([]float64, 0, batches)
	for range batches {
		s.n = 0
		s.last = s.now()
		for range pairs {
			s.TaskBegin("calibrate")
			s.TaskEnd()
		}
		first, last := s.buf[0].t, s.buf[s.n-1].t
		means = append(means, float64(last-first)/float64(s.n-1))
	}
	s.n = 0
	return robust.Median(means)
}

// measureOverlapLoss returns, in ticks of read (the profiler's clock,
// Profiler.now), how much longer a loop of short computing tasks takes
// per task with a clock read between consecutive tasks than without,
// beyond what the reads take back to back: the overlap of one task's
// last instructions with the next one's first that a read there takes
// away (see Profiler.OverlapLossNs). It is the median over batches,
// each timing the three loops one after the other, and at least 0:
// where reads overlap the work, a loop with them takes less than the
// two apart.
func measureOverlapLoss(read func() int64) float64 {
	const batches, tasks, workNs = 9, 500, 100
	var sink uint64
	loss := make([]float64, 0, batches)
	for range batches {
		t0 := read()
		for i := range tasks {
			sink += spin.Work(workNs, uint64(i)+1)
		}
		t1 := read()
		for i := range tasks {
			sink += spin.Work(workNs, uint64(i)+1)
			sink += uint64(read())
		}
		t2 := read()
		for range tasks {
			sink += uint64(read())
		}
		t3 := read()
		loss = append(loss, float64((t2-t1)-(t1-t0)-(t3-t2))/tasks)
	}
	overlapSink.Add(sink)
	return max(robust.Median(loss), 0)
}

// overlapSink keeps measureOverlapLoss's loops from being optimized
// away.
var overlapSink atomic.Uint64
