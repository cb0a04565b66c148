package profiler

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/tree"
)

// Sample is one reading of a CounterSet: the counts since its last Begin.
type Sample struct {
	Instructions uint64
	Cycles       uint64
	LLCMisses    uint64
}

// CounterSet is the hardware behind the per-section counters, kept behind
// an interface so that tests can feed fake counts. The profiler calls
// Begin at a top-level SecBegin, End at the matching SecEnd, and Close at
// Stop, all on the recording thread.
type CounterSet interface {
	// Begin resets the counters and starts counting.
	Begin() error
	// Pause stops counting without resetting.
	Pause() error
	// Resume goes on counting after Pause.
	Resume() error
	// End stops counting and returns the counts since Begin.
	End() (Sample, error)
	// Close releases the counters.
	Close() error
}

// CounterOpener opens a CounterSet for the calling thread. An error says
// why there are no counters; recording goes on without them.
type CounterOpener func() (CounterSet, error)

// beginCounters starts the counters of a top-level section; the time it
// takes falls into no interval.
func (p *Profiler) beginCounters() {
	if err := p.counters.Begin(); err != nil {
		p.counterFailed(err)
		return
	}
	p.secStart = p.now()
	p.paused = 0
	p.last = p.secStart
}

// endCounters reads the counters of a top-level section that ended at t
// and returns the 1-based index of the sample (0 if none).
func (p *Profiler) endCounters(t int64) int64 {
	s, err := p.counters.End()
	if err != nil {
		p.counterFailed(err)
		return 0
	}
	p.samples = append(p.samples, sample{s, t - p.secStart - p.paused})
	return int64(len(p.samples))
}

// counterFailed turns the counters off for the rest of the run.
func (p *Profiler) counterFailed(err error) {
	p.counting = false
	p.note = fmt.Sprintf("hardware counters failed during recording (sections after the failure have none): %v", err)
}

// sectionCounters returns the counters of one run of a top-level section
// from sample idx (1-based; 0: none) and adds them to the section name's
// sums.
func (p *Profiler) sectionCounters(name string, idx int64) *tree.Counters {
	if idx <= 0 || int(idx) > len(p.samples) {
		return nil
	}
	s := p.samples[idx-1]
	c := &tree.Counters{
		Instructions: s.Instructions,
		Cycles:       s.Cycles,
		LLCMisses:    s.LLCMisses,
		TimeNs:       int64(math.Round(float64(s.ticks) * p.nsPerTick)),
		Runs:         1,
	}
	a := p.sums[name]
	if a == nil {
		a = &sums{}
		p.sums[name] = a
	}
	a.inst += c.Instructions
	a.cyc += c.Cycles
	a.llc += c.LLCMisses
	a.ns += c.TimeNs
	a.runs++
	return c
}

// averageCounters gives every top-level section the average counters of
// all runs of sections with its name.
func (p *Profiler) averageCounters(root *tree.Node) {
	if len(p.sums) == 0 {
		return
	}
	avg := make(map[string]*tree.Counters, len(p.sums))
	for name, a := range p.sums {
		avg[name] = &tree.Counters{
			Instructions: a.inst / uint64(a.runs),
			Cycles:       a.cyc / uint64(a.runs),
			LLCMisses:    a.llc / uint64(a.runs),
			TimeNs:       a.ns / a.runs,
			Runs:         a.runs,
		}
	}
	for _, c := range root.Children {
		if c.Kind == tree.KindSec {
			if a, ok := avg[c.Name]; ok {
				c.Counters = a
			}
		}
	}
}
