// Package emulate predicts the parallel time of a program tree for a
// thread count and a schedule. It holds what the emulators share: options,
// results and the paper's formula that combines top-level sections into an
// overall speedup. The fast-forward emulator lives in emulate/ff, the
// goroutine synthesizer in emulate/syn.
package emulate

import (
	"fmt"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// Options tune one emulation.
type Options struct {
	// Overheads are the costs of parallel constructs to charge (ff) on
	// the target machine. A zero value charges nothing: ideal schedules.
	Overheads machine.Overheads
	// Walk holds the synthesizer's tree-walking costs.
	Walk machine.Walk
	// Burden returns the burden factor β_t of a top-level section for
	// the thread count being emulated (the memory model); every U and L
	// length inside the section is multiplied by it. Nil means 1.
	Burden func(sec *tree.Node, threads int) float64
	// Workers bounds how many predictions RunSweep makes at once; 0
	// means GOMAXPROCS.
	Workers int
	// Budget, when not nil, bounds the steps the emulations take in
	// all (emulators that count them: ff); an emulation stops with an
	// error matching ErrOverBudget once it is spent.
	Budget *Budget
}

// BurdenOf returns the burden factor for sec at threads, 1 when no
// memory model is in use.
func (o Options) BurdenOf(sec *tree.Node, threads int) float64 {
	if o.Burden == nil {
		return 1
	}
	b := o.Burden(sec, threads)
	if b < 1 {
		return 1
	}
	return b
}

// Section is the prediction for one top-level section node (standing for
// Count consecutive runs of the section).
type Section struct {
	Name string `json:"name"`
	// Count is the number of consecutive runs the node stands for.
	Count int64 `json:"count"`
	// SerialNs is the section's serial time, all runs together.
	SerialNs float64 `json:"serial_ns"`
	// ParallelNs is its predicted parallel time, all runs together.
	ParallelNs float64 `json:"parallel_ns"`
	// Burden is the burden factor applied.
	Burden float64 `json:"burden"`
	// BusyNs and IdleNs add up, over all logical threads, the time spent
	// working and waiting (idle, at barriers, for locks), when the
	// emulator knows them; both zero otherwise.
	BusyNs float64 `json:"busy_ns,omitempty"`
	IdleNs float64 `json:"idle_ns,omitempty"`
	// Spread is the relative spread (IQR/median) of repeated
	// measurements, for emulators that measure (syn); zero otherwise.
	Spread float64 `json:"spread,omitempty"`
}

// Result is the prediction for a whole tree at one thread count and
// schedule.
type Result struct {
	Emulator string       `json:"emulator"`
	Schedule par.Schedule `json:"-"`
	Threads  int          `json:"threads"`
	// SerialNs is the serial time of the whole program (top-level U
	// nodes plus sections).
	SerialNs float64 `json:"serial_ns"`
	// ParallelNs is the predicted parallel time.
	ParallelNs float64 `json:"parallel_ns"`
	// Speedup is SerialNs / ParallelNs.
	Speedup float64 `json:"speedup"`
	// MemoryModel says whether burden factors other than 1 were applied.
	MemoryModel bool `json:"memory_model"`
	// Sampled says the prediction is an estimate: its full emulation ran
	// over its share of the budget, and each large section was emulated
	// on a sample of its tasks, its time scaled by its work (RunSweep).
	Sampled  bool      `json:"sampled,omitempty"`
	Sections []Section `json:"sections"`
}

// SectionEmulator predicts the parallel time of one run of one top-level
// section. Both emulators implement it; Predict does the rest.
type SectionEmulator interface {
	// Name is the emulator's short name ("ff", "syn").
	Name() string
	// Section returns the predicted parallel time in nanoseconds of one
	// run of sec (ignoring sec.Count) with the given threads, schedule,
	// burden factor and options, and the busy and idle time over all
	// threads if known.
	Section(sec *tree.Node, threads int, sched par.Schedule, burden float64, opt Options) (Section, error)
}

// Batcher is a SectionEmulator that predicts several top-level sections
// in one call: Predict passes it all of a tree's sections (burdens[i] is
// secs[i]'s burden factor, gaps[i] the serial time in nanoseconds that
// the program spends between the previous section, or its start, and
// secs[i]: the top-level U and L nodes in between) and expects one
// Section per section, in order, as Section would return them. The
// synthesizer implements it to interleave the replays of the sections
// and to let the cores idle before each replay as long as the program
// leaves them idle.
type Batcher interface {
	SectionEmulator
	Sections(secs []*tree.Node, threads int, sched par.Schedule, burdens, gaps []float64, opt Options) ([]Section, error)
}

// Predict combines per-section predictions into an overall speedup with
// the paper's formula: serial time over the sum of top-level U lengths
// plus each top-level section's predicted parallel time.
func Predict(e SectionEmulator, t *tree.Tree, threads int, sched par.Schedule, opt Options) (Result, error) {
	if threads < 1 {
		return Result{}, fmt.Errorf("thread count %d: must be at least 1", threads)
	}
	if t == nil || t.Root == nil {
		return Result{}, fmt.Errorf("empty program tree")
	}
	res := Result{Emulator: e.Name(), Schedule: sched, Threads: threads}
	nsec := 0
	for _, n := range t.Root.Children {
		if n.Kind == tree.KindSec {
			nsec++
		}
	}
	if nsec > 0 {
		res.Sections = make([]Section, 0, nsec)
	}
	var works tree.WorkMemo
	// A Batcher predicts every section first, in one call (burdens[i]
	// is batched[i]'s burden factor).
	var batched []Section
	var burdens []float64
	if b, ok := e.(Batcher); ok {
		secs := make([]*tree.Node, 0, nsec)
		gaps := make([]float64, 0, nsec)
		burdens = make([]float64, 0, nsec)
		gap := 0.0
		for _, n := range t.Root.Children {
			switch n.Kind {
			case tree.KindSec:
				secs = append(secs, n)
				burdens = append(burdens, opt.BurdenOf(n, threads))
				gaps = append(gaps, gap)
				gap = 0
			case tree.KindU, tree.KindL:
				gap += float64(n.Len) * float64(n.Reps())
			}
		}
		if len(secs) > 0 {
			var err error
			if batched, err = b.Sections(secs, threads, sched, burdens, gaps, opt); err != nil {
				return Result{}, err
			}
			if len(batched) != len(secs) {
				return Result{}, fmt.Errorf("%s predicted %d sections of %d", e.Name(), len(batched), len(secs))
			}
		}
	}
	for _, n := range t.Root.Children {
		reps := float64(n.Reps())
		switch n.Kind {
		case tree.KindU, tree.KindL:
			w := float64(n.Len) * reps
			res.SerialNs += w
			res.ParallelNs += w
		case tree.KindSec:
			var s Section
			var b float64
			if batched != nil {
				s, b = batched[0], burdens[0]
				batched, burdens = batched[1:], burdens[1:]
			} else {
				b = opt.BurdenOf(n, threads)
				var err error
				if s, err = e.Section(n, threads, sched, b, opt); err != nil {
					return Result{}, fmt.Errorf("section %q: %w", n.Name, err)
				}
			}
			serial := float64(works.Work(n)) // Work counts n.Count runs
			s.Name, s.Count, s.Burden = n.Name, n.Reps(), b
			s.SerialNs = serial
			s.ParallelNs *= reps
			s.BusyNs *= reps
			s.IdleNs *= reps
			if b != 1 {
				res.MemoryModel = true
			}
			res.SerialNs += serial
			res.ParallelNs += s.ParallelNs
			res.Sections = append(res.Sections, s)
		default:
			return Result{}, fmt.Errorf("unexpected %s node at top level", n.Kind)
		}
	}
	if res.ParallelNs > 0 {
		res.Speedup = res.SerialNs / res.ParallelNs
	} else {
		res.Speedup = 1
	}
	return res, nil
}
