package emulate

import (
	"math"

	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// A prediction over its budget is estimated from a sample of each large
// top-level section's tasks (see RunSweep): SampleWindows windows of
// consecutive tasks spread evenly through the section, at least
// SampleTasks tasks and SampleWorkNs of work for each thread in all, and
// only where that is at most half the section's tasks. A fixed cost
// (starting the team's workers, the join) is scaled with the sample's
// time, so the sample must take long beside it: on a lock-free loop of
// 437,000 tasks of 28 ns, static:1 at 16 threads came out 47% slow from
// 100,000 tasks (under a fifth of a millisecond a thread) and 9% from
// half the loop (docs/measurements.md).
const (
	SampleTasks   = 100_000
	SampleWorkNs  = 5e6
	SampleWindows = 16
)

// sampled is a tree whose large top-level sections are samples of the
// original's (sampleTree), with what the predictions for it need to
// stand for the original.
type sampled struct {
	t *tree.Tree
	// ratio maps each sampled section to its original's work over its
	// own.
	ratio map[*tree.Node]float64
	// serialNs is the original tree's serial time, secSerial its
	// top-level sections' in order (Result.SerialNs and
	// Section.SerialNs of a prediction for it).
	serialNs  float64
	secSerial []float64
}

// sampleTree returns t with every top-level section large enough (see
// SampleTasks) replaced by sampleSection's sample of it for a prediction
// at threads threads, and false where no section is that large.
func sampleTree(t *tree.Tree, threads int) (sampled, bool) {
	var works tree.WorkMemo
	s := sampled{ratio: map[*tree.Node]float64{}, serialNs: float64(works.Work(t.Root))}
	root := *t.Root
	root.Children = make([]*tree.Node, len(t.Root.Children))
	for i, n := range t.Root.Children {
		root.Children[i] = n
		if n.Kind != tree.KindSec {
			continue
		}
		w := float64(works.Work(n))
		s.secSerial = append(s.secSerial, w)
		m, ok := sampleSize(n, w/float64(n.Reps()), threads)
		if !ok {
			continue
		}
		smp := sampleSection(n, m, SampleWindows)
		if sw := float64(tree.Work(smp)); sw > 0 && w > 0 {
			root.Children[i] = smp
			s.ratio[smp] = w / sw
		}
	}
	if len(s.ratio) == 0 {
		return sampled{}, false
	}
	s.t = &tree.Tree{Root: &root, Meta: t.Meta}
	return s, true
}

// sampleSize returns how many of section sec's tasks a sample for a
// prediction at threads threads holds (one run of sec doing work ns of
// work): SampleTasks, or more to hold SampleWorkNs of work for each
// thread; and false where that is more than half its tasks.
func sampleSize(sec *tree.Node, work float64, threads int) (int64, bool) {
	n := tasks(sec)
	if n == 0 || !(work > 0) {
		return 0, false
	}
	m := int64(SampleTasks)
	if need := SampleWorkNs * float64(threads) / (work / float64(n)); need > float64(m) {
		m = int64(min(math.Ceil(need), float64(n)))
	}
	return m, 2*m <= n
}

// tasks returns how many tasks one run of section sec holds.
func tasks(sec *tree.Node) int64 {
	var n int64
	for _, c := range sec.Children {
		if c.Kind == tree.KindTask {
			n += c.Reps()
		}
	}
	return n
}

// sampleSection returns a copy of sec (Count and all) that holds, of its
// tasks, windows windows of m/windows consecutive ones, window j starting
// at task j·n/windows of its n, a run cut where a window ends; and its
// own nodes before its first task. It keeps none of its other non-task
// children: between tasks, par runs no serial code (see package syn),
// and a section's U nodes after its tasks are a small share of a section
// large enough to sample.
func sampleSection(sec *tree.Node, m, windows int64) *tree.Node {
	n := tasks(sec)
	per := max(m/windows, 1)
	out := *sec
	out.Children = nil
	var pos int64 // tasks before child c
	j := int64(0)
	for _, c := range sec.Children {
		if c.Kind != tree.KindTask {
			if pos == 0 {
				out.Children = append(out.Children, c)
			}
			continue
		}
		count := c.Reps()
		for j < windows {
			lo := n * j / windows
			hi := min(lo+per, n)
			if a, b := max(lo, pos), min(hi, pos+count); a < b {
				cut := *c
				cut.Count = b - a
				out.Children = append(out.Children, &cut)
			}
			if hi > pos+count {
				break // window j goes on in the next child
			}
			j++
		}
		pos += count
	}
	return &out
}

// scaled is an emulator that predicts a sampled tree's sections with e
// and scales each sampled section's times by its original's work over
// its own, so that emulate.Predict on the sampled tree composes an
// estimate for the original.
type scaled struct {
	e     SectionEmulator
	ratio map[*tree.Node]float64
}

// Name returns e's name.
func (s scaled) Name() string { return s.e.Name() }

// Section returns e's prediction for sec, scaled where sec is a sample.
func (s scaled) Section(sec *tree.Node, threads int, sched par.Schedule, burden float64, opt Options) (Section, error) {
	r, err := s.e.Section(sec, threads, sched, burden, opt)
	return s.scale(sec, r), err
}

// Sections passes secs to e's Sections where e is a Batcher (Section
// for each otherwise) and scales the sampled sections' times.
func (s scaled) Sections(secs []*tree.Node, threads int, sched par.Schedule, burdens, gaps []float64, opt Options) ([]Section, error) {
	b, ok := s.e.(Batcher)
	if !ok {
		out := make([]Section, len(secs))
		for i, sec := range secs {
			r, err := s.Section(sec, threads, sched, burdens[i], opt)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	out, err := b.Sections(secs, threads, sched, burdens, gaps, opt)
	if err != nil || len(out) != len(secs) {
		return out, err
	}
	for i, sec := range secs {
		out[i] = s.scale(sec, out[i])
	}
	return out, nil
}

// Clone returns a scaled clone of e where e is a Cloner, else nil.
func (s scaled) Clone() SectionEmulator {
	c, ok := s.e.(Cloner)
	if !ok {
		return nil
	}
	ce := c.Clone()
	if ce == nil {
		return nil
	}
	return scaled{ce, s.ratio}
}

// scale returns r, the prediction for section sec, with its times
// scaled where sec is a sample (Predict sets its serial time from the
// tree, and estimate the original's).
func (s scaled) scale(sec *tree.Node, r Section) Section {
	if k, ok := s.ratio[sec]; ok {
		r.ParallelNs *= k
		r.BusyNs *= k
		r.IdleNs *= k
	}
	return r
}

// estimate makes r, a prediction for s's sampled tree, stand for the
// original: its serial times the original's, its speedup from them, and
// marked Sampled.
func (s sampled) estimate(r Result) Result {
	r.SerialNs = s.serialNs
	for i := range r.Sections {
		if i < len(s.secSerial) {
			r.Sections[i].SerialNs = s.secSerial[i]
		}
	}
	if r.ParallelNs > 0 {
		r.Speedup = r.SerialNs / r.ParallelNs
	}
	r.Sampled = true
	return r
}
