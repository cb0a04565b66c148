package syn

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// ErrTooManyThreads matches (errors.Is) the error Section returns when
// asked for more threads than the synthesizer can predict on this
// machine: emulate.ErrTooManyThreads, which callers that know no
// particular emulator test for.
var ErrTooManyThreads = emulate.ErrTooManyThreads

// TooManyThreadsError is the error for a thread count above MaxThreads.
// Its message is one sentence for the user.
type TooManyThreadsError struct {
	Max, Asked int
}

// Error says how many threads syn predicts here and how many were asked.
func (e *TooManyThreadsError) Error() string {
	return fmt.Sprintf("syn predicts up to %d threads on this machine (asked for %d)", e.Max, e.Asked)
}

// Is reports whether target is ErrTooManyThreads.
func (e *TooManyThreadsError) Is(target error) bool { return target == ErrTooManyThreads }

// Statistic is how the repeated measurements of a section are reduced to
// one predicted time.
type Statistic uint8

// The statistics.
const (
	// Median is the median of the measurements (the default).
	Median Statistic = iota
	// Min is the fastest measurement: the least disturbed run on a
	// loaded machine.
	Min
	// Mean is the arithmetic mean.
	Mean
)

// String names the statistic.
func (s Statistic) String() string {
	switch s {
	case Median:
		return "median"
	case Min:
		return "min"
	case Mean:
		return "mean"
	}
	return fmt.Sprintf("Statistic(%d)", uint8(s))
}

// Options tune the synthesizer.
type Options struct {
	// Repeats is how many timed replays make one prediction, after one
	// untimed warm-up replay. Zero means 5.
	Repeats int
	// Statistic reduces the timed replays to one time (default Median).
	Statistic Statistic
	// Budget, when positive, bounds the time spent on timed replays of
	// one section: after the warm-up, replays stop once they have taken
	// Budget in all (at least one is always made). A prediction costs
	// about (1 + Repeats) replays of T/S each, T the section's serial
	// time and S its speedup, plus the walking cost; Budget caps that
	// for long sections.
	Budget time.Duration
	// MaxThreads is the largest thread count syn predicts. Zero means
	// runtime.NumCPU(); a larger value is allowed (for experiments) but
	// the replay then shares cores and predicts nothing real.
	MaxThreads int
	// FixedWalk replays every section with the walking costs of
	// emulate.Options.Walk (or MeasureWalk's) instead of measuring each
	// section's own on its first tasks before replaying it: for tests
	// that need the walk accounted to be known in advance.
	FixedWalk bool
}

// Emulator is the synthesizer. It implements emulate.SectionEmulator and
// emulate.Limited. Its methods may be called from several goroutines;
// sections are replayed one at a time, since GOMAXPROCS is process-wide.
type Emulator struct {
	opt Options

	mu sync.Mutex // held while a section is replayed
	// walks holds each section's own walking costs (sectionWalk),
	// measured the first time the section is replayed; guarded by mu.
	walks map[walkKey]machine.Walk

	walkOnce sync.Once
	walk     machine.Walk
	spinOnce sync.Once
	spinNs   float64
}

// New returns a synthesizer with the given options (zero fields take
// their defaults).
func New(opt Options) *Emulator {
	if opt.Repeats < 1 {
		opt.Repeats = 5
	}
	if opt.MaxThreads < 1 {
		opt.MaxThreads = runtime.NumCPU()
	}
	return &Emulator{opt: opt, walks: map[walkKey]machine.Walk{}}
}

// Name returns "syn".
func (e *Emulator) Name() string { return "syn" }

// Measures returns true: the synthesizer's predictions are timings of
// replays on this machine (see emulate.Measurer).
func (e *Emulator) Measures() bool { return true }

// MaxThreads returns the largest thread count the emulator predicts.
func (e *Emulator) MaxThreads() int { return e.opt.MaxThreads }

// walkCost returns the walking costs: opt.Walk when set, otherwise ones
// measured on this machine the first time they are needed. A Walk from a
// profile saved before SpinNs was measured has that measured alone
// (measureSpin), the first time it is needed; one that names another
// clock than spin.For reads here (machine.Walk.Clock) counts as not set.
func (e *Emulator) walkCost(opt emulate.Options) machine.Walk {
	w := opt.Walk
	if w.Clock != "" && w.Clock != spin.Clock() {
		w = machine.Walk{}
	}
	if w == (machine.Walk{}) {
		e.walkOnce.Do(func() { e.walk = MeasureWalk() })
		return e.walk
	}
	if w.SpinNs == 0 {
		e.spinOnce.Do(func() { e.spinNs = measureSpin() })
		w.SpinNs = e.spinNs
	}
	return w
}

// Section replays one run of the top-level section sec at threads threads
// with schedule sched, every U and L length multiplied by burden, and
// returns its predicted parallel time with busy and idle time and the
// spread of the measurements. It sets runtime.GOMAXPROCS(threads) for the
// replay and restores it before returning. The walking costs subtracted
// are opt.Walk, or measured with MeasureWalk when opt.Walk is zero.
func (e *Emulator) Section(sec *tree.Node, threads int, sched par.Schedule, burden float64, opt emulate.Options) (emulate.Section, error) {
	out, err := e.Sections([]*tree.Node{sec}, threads, sched, []float64{burden}, nil, opt)
	if err != nil {
		return emulate.Section{}, err
	}
	return out[0], nil
}

var _ emulate.Batcher = (*Emulator)(nil)

// Sections is Section for several sections at once (emulate.Predict
// passes all the top-level sections of a tree, burdens[i] for secs[i]).
// The replays go in rounds, each replaying every section once in order:
// one untimed round, then Options.Repeats timed ones. A burst of other
// load on the machine then slows one replay of many sections, which the
// statistic discards, rather than every replay of one section, which it
// cannot; and, as in the real program, each section starts on threads
// that have just run the one before. Before each replay of secs[i] the
// replaying goroutine spins, untimed, for gaps[i] (the program's serial
// time before the section, at most MaxGap; nil gaps: none), so that the
// other cores have been idle as long as in the program: a core idle for
// a few microseconds picks up a new worker at once, one idle longer has
// parked its thread and must be woken, so that tiny loops between serial
// code take longer than back to back.
func (e *Emulator) Sections(secs []*tree.Node, threads int, sched par.Schedule, burdens, gaps []float64, opt emulate.Options) ([]emulate.Section, error) {
	if threads < 1 {
		return nil, fmt.Errorf("thread count %d: must be at least 1", threads)
	}
	if threads > e.opt.MaxThreads {
		return nil, &TooManyThreadsError{Max: e.opt.MaxThreads, Asked: threads}
	}
	if len(burdens) != len(secs) {
		return nil, fmt.Errorf("%d burden factors for %d sections", len(burdens), len(secs))
	}
	if gaps != nil && len(gaps) != len(secs) {
		return nil, fmt.Errorf("%d gaps for %d sections", len(gaps), len(secs))
	}
	plans := make([]*secPlan, len(secs))
	for i, sec := range secs {
		if sec == nil {
			return nil, fmt.Errorf("no section to replay")
		}
		plan, err := compile(sec, burdens[i])
		if err != nil {
			return nil, fmt.Errorf("section %q: preparing the replay: %w", sec.Name, err)
		}
		if gaps != nil {
			plan.gap = int64(min(max(gaps[i], 0), float64(MaxGap)))
		}
		plans[i] = plan
	}
	walk := e.walkCost(opt)
	callNs := opt.Overheads.TaskCallNs
	if !(callNs > 0) || math.IsInf(callNs, 0) {
		callNs = 0
	}
	ms := e.measure(secs, plans, threads, sched, walk, callNs)
	out := make([]emulate.Section, len(secs))
	for i, sec := range secs {
		m := ms[i]
		out[i] = emulate.Section{
			Name:       sec.Name,
			Count:      sec.Reps(),
			SerialNs:   float64(plans[i].work) / burdens[i],
			ParallelNs: m.parallel,
			Burden:     burdens[i],
			BusyNs:     m.busy,
			IdleNs:     max(0, float64(threads)*m.parallel-m.busy),
			Spread:     m.spread,
		}
	}
	return out, nil
}

// MaxGap bounds the serial time replayed, untimed, before a section (see
// Emulator.Sections): long enough for idle cores to park their threads,
// short enough that a program's long serial phases do not make the
// estimate much longer than the program.
const MaxGap = 2 * time.Millisecond

// measurement is the outcome of the repeated replays of one section.
type measurement struct {
	parallel  float64 // the statistic of the net times, ns, at least busy/threads
	unclamped float64 // the statistic before that bound
	busy      float64 // median busy time over all goroutines, ns
	spread    float64 // IQR / median of the net times
	samples   []float64
}

// walkKey names a section's measured walking cost: the section, and
// the task call cost left out of it (see measure).
type walkKey struct {
	sec    *tree.Node
	callNs float64
}

// measure wakes the cores up, replays every plan once untimed, then
// e.opt.Repeats rounds of timed replays of each plan in turn (see
// Sections); a plan whose timed replays have taken e.opt.Budget sits out
// the remaining rounds.
//
// callNs is what the program's parallel loop adds to each task by calling
// its body (machine.Overheads.TaskCallNs): the replays pay it as the
// program does, since they run their tasks through package par too, and
// a section's walking cost is measured without it.
func (e *Emulator) measure(secs []*tree.Node, plans []*secPlan, threads int, sched par.Schedule, walk machine.Walk, callNs float64) []measurement {
	e.mu.Lock()
	defer e.mu.Unlock()
	prev := runtime.GOMAXPROCS(threads)
	defer runtime.GOMAXPROCS(prev)

	// Measure how Work's requests must scale to take their time now
	// (spin.WorkScale) and each section's own walking cost
	// (sectionWalk) the first time it is replayed, wake the cores up
	// (see spin.WarmNs), then replay every plan once untimed.
	scale := spin.WorkScale()
	rs := make([]*replayer, len(plans))
	for i, plan := range plans {
		w := walk
		if !e.opt.FixedWalk {
			k := walkKey{secs[i], callNs}
			c, ok := e.walks[k]
			if !ok {
				c = sectionWalk(plan, walk, callNs, scale)
				e.walks[k] = c
			}
			w = c
		}
		rs[i] = &replayer{sched: sched, threads: threads, walk: costs{w, scale}}
	}
	spin.Team(threads, spin.WarmNs)
	for i, plan := range plans {
		var warm acct
		spin.For(plan.gap)
		rs[i].sec(plan, &warm)
	}

	nets := make([][]float64, len(plans))
	busys := make([][]float64, len(plans))
	spent := make([]int64, len(plans))
	for range e.opt.Repeats {
		for i, plan := range plans {
			if len(nets[i]) > 0 && e.opt.Budget > 0 && spent[i] >= e.opt.Budget.Nanoseconds() {
				continue
			}
			var a acct
			spin.For(plan.gap)
			start := clock.Now()
			rs[i].sec(plan, &a)
			wall := clock.Now() - start
			nets[i] = append(nets[i], float64(wall)-a.walk)
			busys[i] = append(busys[i], float64(a.busy))
			spent[i] += wall
		}
	}
	out := make([]measurement, len(plans))
	for i := range plans {
		m := summarize(nets[i], busys[i], e.opt.Statistic)
		// The parallel time can never be below the work the replay did
		// (its busy time: the serial work, less the per-worker setup
		// that only some tasks ran) divided among the threads; the
		// walking cost of a tiny section could otherwise be
		// over-subtracted into a too short or negative time.
		m.unclamped = m.parallel
		m.parallel = max(m.parallel, m.busy/float64(threads))
		out[i] = m
	}
	return out
}

// summarize reduces repeated net times and busy times.
func summarize(nets, busys []float64, st Statistic) measurement {
	sorted := slices.Clone(nets)
	slices.Sort(sorted)
	slices.Sort(busys)
	med := robust.SortedQuantile(0.5, sorted)
	m := measurement{
		parallel: med,
		busy:     robust.SortedQuantile(0.5, busys),
		samples:  nets,
	}
	switch st {
	case Min:
		m.parallel = sorted[0]
	case Mean:
		m.parallel = stat.Mean(sorted, nil)
	}
	if med > 0 {
		m.spread = (robust.SortedQuantile(0.75, sorted) - robust.SortedQuantile(0.25, sorted)) / med
	}
	return m
}
