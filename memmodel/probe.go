package memmodel

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/tree"
)

// ProbeDetail is every intermediate quantity of one burden factor
// computed from the memory probe (package memprobe).
type ProbeDetail struct {
	Threads int `json:"threads"`
	// Share is the section's bandwidth share in bandits (the runs'
	// weighted mean over the bandit counts probed, at most 1).
	Share float64 `json:"share"`
	// Load is (Threads−1)·Share: the bandits the other threads' copies
	// of the section amount to.
	Load float64 `json:"load"`
	// Beta is the burden factor: the section's slowdown beside Load
	// bandits (at least 1).
	Beta float64 `json:"beta"`
	// Extrapolated is true when Load is beyond the most bandits probed,
	// so that Beta follows the bandwidth curve's saturation rather than
	// a measurement.
	Extrapolated bool `json:"extrapolated,omitempty"`
	// Why is empty when Beta came from the probe, and otherwise says
	// why it is 1.
	Why string `json:"why,omitempty"`
}

// ProbeBurden returns β_t of the top-level section named name from the
// memory probe p: the section's slowdown beside a load of (t−1)·share
// bandits, interpolated linearly between the loads probed (and 1 beside
// none); the low-intensity point bends the line where a loop's slowdown
// grows slower than the load, as a latency-bound loop's does. A share
// above 1 (the section slowed the bandits more than one more bandit
// did, as a loop that also writes can) counts as 1: the slowdown was
// measured beside whole bandits, and the share is the probe's noisiest
// number (a difference of two traffics), so the model does not
// extrapolate from it.
//
// Each point counts as at most the one after it (and at least 1): more
// load never makes a section faster, and a run's noise (an interrupt, a
// page fault, another program) only ever lengthens it, so a point above
// its successor is taken as noise rather than carried up the curve.
//
// Beyond the largest load probed, j (more threads than the probe had
// cores), the slowdown s_j is split into what a bandwidth effect can
// explain, at most the bandits' own slowdown there, b = min(s_j, g(j+1)),
// and the rest, r = s_j/b (shared cache, prefetchers), carried as it is;
// the bandwidth part grows as one bandit's does beside more bandits on
// the probe's bandwidth curve:
//
//	s(x) = r·(1 + (b − 1)·(g(x+1) − 1)/(g(j+1) − 1)),   g(n) = B(1)/B(n)
//
// where B(n) is each of n bandits' traffic: measured up to the probe's
// streams, and beyond them the saturation bandwidth (the curve's largest
// n·B(n)) shared by n, B(1) at most. A section thus never extrapolates
// past r·g(x+1): a pure streamer's slowdown, no more than x+1 times r.
// Where the curve is flat at j (g(j+1) ≤ 1.01), s_j is carried as it is.
func ProbeBurden(p *tree.MemoryProbe, name string, threads int) ProbeDetail {
	d := ProbeDetail{Threads: threads, Beta: 1}
	if p == nil {
		d.Why = "no memory probe"
		return d
	}
	sec, ok := p.Sections[name]
	if !ok || len(sec.Points) == 0 {
		d.Why = "section not probed"
		return d
	}
	var runs int
	for _, pt := range sec.Points {
		if pt.Spin == 0 {
			d.Share += pt.Share * float64(pt.Runs)
			runs += pt.Runs
		}
	}
	if runs == 0 {
		d.Why = "no share measured (no run beside full bandits)"
		return d
	}
	d.Share = min(d.Share/float64(runs), 1)
	if threads <= 1 {
		d.Why = "one thread"
		return d
	}
	d.Load = float64(threads-1) * d.Share
	// Interpolate through (0, 1) and the points, each counted as at
	// most the one after it and at least 1.
	slow := make([]float64, len(sec.Points))
	next := math.Inf(1)
	for i := len(sec.Points) - 1; i >= 0; i-- {
		slow[i] = max(1, min(sec.Points[i].Slowdown, next))
		next = slow[i]
	}
	prevJ, prevS := 0.0, 1.0
	s := math.NaN()
	for i, pt := range sec.Points {
		j, sj := pt.Load, slow[i]
		if d.Load <= j {
			s = prevS + (sj-prevS)*(d.Load-prevJ)/(j-prevJ)
			break
		}
		prevJ, prevS = j, sj
	}
	if math.IsNaN(s) {
		d.Extrapolated = true
		s = prevS
		if g0 := saturation(p.Curve, prevJ+1); g0 > 1.01 {
			b := min(prevS, g0)
			s = prevS / b * (1 + (b-1)*(saturation(p.Curve, d.Load+1)-1)/(g0-1))
		}
	}
	d.Beta = s
	if !(d.Beta > 1) {
		d.Beta = 1
		d.Why = "the probe measured no slowdown"
	}
	return d
}

// saturation returns g(n) = B(1)/B(n) on curve (see ProbeBurden) at a
// stream count n ≥ 1 that need not be whole; 1 without a curve.
func saturation(curve []tree.ProbeStreams, n float64) float64 {
	if len(curve) == 0 || curve[0].Streams != 1 {
		return 1
	}
	b1 := curve[0].MBs
	sat := 0.0
	for _, c := range curve {
		sat = max(sat, float64(c.Streams)*c.MBs)
	}
	bn := math.NaN()
	for i := 1; i < len(curve); i++ {
		lo, hi := curve[i-1], curve[i]
		if n <= float64(hi.Streams) {
			bn = lo.MBs + (hi.MBs-lo.MBs)*(n-float64(lo.Streams))/float64(hi.Streams-lo.Streams)
			break
		}
	}
	if math.IsNaN(bn) {
		last := curve[len(curve)-1]
		bn = last.MBs
		if n > float64(last.Streams) {
			bn = min(last.MBs, sat/n)
		}
	}
	if n <= 1 || !(bn > 0) {
		return 1
	}
	return max(1, b1/bn)
}

// SaturationMBs returns the largest total traffic on the probe's
// bandwidth curve (MB/s), the bandwidth ProbeBurden extrapolates with.
func SaturationMBs(p *tree.MemoryProbe) float64 {
	sat := 0.0
	if p != nil {
		for _, c := range p.Curve {
			sat = max(sat, float64(c.Streams)*c.MBs)
		}
	}
	return sat
}

// probeSummary describes the probe for a status line.
func probeSummary(p *tree.MemoryProbe) string {
	return fmt.Sprintf("memory probe on %d cores", p.Cores)
}
