package ff

import (
	"fmt"
	"math"
	"sync"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// MaxThreads is the largest thread count the emulator accepts.
const MaxThreads = 1 << 16

// DefaultWakeSamples is the number of wake-up latency quantiles a section
// is emulated with when Emulator.WakeSamples is zero.
const DefaultWakeSamples = 5

// Emulator is the fast-forward emulator. The zero value is ready to use;
// New returns one with the defaults spelled out, which also reuses its
// working memory and remembers the compact copy of every section it
// emulates (see the package documentation): a tree must not be modified
// after an Emulator made by New has emulated it (use a new Emulator).
// An Emulator is safe for concurrent use as long as Timeline is nil.
type Emulator struct {
	// WakeSamples is how many wake-up latencies (quantiles of the
	// latency distribution, see the package documentation) each section
	// is emulated with; the predictions are averaged (Sections spreads
	// them over the runs of a section a program runs many times
	// instead). Zero means DefaultWakeSamples; 1 uses the median only.
	WakeSamples int
	// Timeline, when not nil, receives the spans of every emulated
	// section run (the run with the median wake-up latency), with times
	// relative to the section's start.
	Timeline *[]emulate.Span
	// MaxSpans bounds the length of the timeline (0: no bound); spans
	// past it are dropped.
	MaxSpans int

	// pool recycles emulation states between calls (nil: no reuse).
	pool *sync.Pool
	// progs remembers the compact copies of the sections emulated,
	// shared with clones (nil: no reuse).
	progs *progCache
	// exactGrid turns off the rounding of wake-up latencies, overheads
	// and burden factors to the grid, stepwise the engine's shortcuts
	// and the sharing of inert wake-up samples, exactSpawn the one
	// shortcut that is not exact (spawnSkip) (for tests).
	exactGrid, stepwise, exactSpawn bool
	// maxG, when positive, replaces MaxGoroutines (for tests).
	maxG int
}

// MaxGoroutines is how many goroutines one emulation holds at once at
// the most (with their frames, some 400 MB); one that would hold more
// fails with emulate.ErrTooLarge, which a sweep reports as a row left
// out. Only a goroutine per task whose tasks wait in great numbers comes
// near it: a spawn loop of short tasks on a lock parks one for nearly
// every task, since the spawner outruns the lock.
const MaxGoroutines = 1 << 20

// New returns an Emulator with the default settings, which reuses its
// working memory from one call to the next.
func New() *Emulator {
	return &Emulator{WakeSamples: DefaultWakeSamples, pool: &sync.Pool{New: func() any { return &state{} }}, progs: &progCache{}}
}

// Name returns "ff".
func (e *Emulator) Name() string { return "ff" }

var (
	_ emulate.SectionEmulator = (*Emulator)(nil)
	_ emulate.Cloner          = (*Emulator)(nil)
	_ emulate.Batcher         = (*Emulator)(nil)
)

// Clone returns a copy of e with its own working memory, for
// emulate.RunSweep to predict on several goroutines at once; nil when e
// records a Timeline (the timeline cannot be shared).
func (e *Emulator) Clone() emulate.SectionEmulator {
	if e.Timeline != nil {
		return nil
	}
	c := *e
	c.pool = &sync.Pool{New: func() any { return &state{} }}
	return &c
}

// wakeLatencies returns the wake-up latencies to emulate with: the
// quantiles (k+0.5)/K, k = 0..K-1, of a log-normal distribution through
// the measured median and 90th percentile (for K = 5: the 10th, 30th,
// 50th, 70th and 90th percentiles, so the measured p50 and p90 themselves
// are two of the samples). With no spread measured (p90 <= p50, or p50
// <= 0) it is the single value max(p50, 0).
//
// The latencies are rounded to the grid of 1/gridScale ns: the lengths in
// the program tree are whole nanoseconds, so with overheads on the grid
// too (machine.Default's are whole nanoseconds) every emulated time is on
// it, and sums of times are exact in float64; that lets the engine run
// runs of identical tasks in closed form with exactly the values the
// step-by-step emulation gives (see state.batch). Rounding moves each
// wake-up by at most 1/(2·gridScale) ns; TestWakeRounding bounds the
// effect on the predictions.
func wakeLatencies(ov machine.Overheads, k int) []float64 {
	out := wakeLatenciesExact(ov, k)
	for i, w := range out {
		out[i] = onGrid(w)
	}
	return out
}

// gridOverheads returns ov with its per-event costs rounded to the grid
// of 1/gridScale ns, as wakeLatencies rounds the wake-up latencies: a
// machine profile from prophet calibrate holds fractions of a nanosecond
// (chunk 21.288 ns, say), and off the grid the engine would have to walk
// every task instead of taking runs of identical tasks in closed form
// (an LU prediction took six times as long). Each charge moves by at most
// 1/(2·gridScale) ns; where locks are contended, such a shift can change
// which of two nearly simultaneous requests comes first, and the
// prediction moves further, as it would for any perturbation of that
// size (TestWakeRounding: 0.003% on average, 0.6% at most, on a tree of
// 2000 tasks on 4 locks).
func gridOverheads(ov machine.Overheads) machine.Overheads {
	for _, x := range []*float64{&ov.ForkNs, &ov.JoinNs, &ov.ChunkNs, &ov.ChunkMigrateNs, &ov.ChunkServeNs, &ov.SpawnNs, &ov.SpawnRunNs, &ov.ChanSendNs, &ov.ChanRecvNs, &ov.LockNs, &ov.LockLocalNs, &ov.LockMigrateNs, &ov.LockHandoffNs, &ov.LockWakeNs, &ov.LockDozeHandoffNs, &ov.LockDozeWakeNs, &ov.LockSwitchNs, &ov.RunnextNs, &ov.WakeStepNs} {
		*x = onGrid(*x)
	}
	return ov
}

// wakeLatenciesExact is wakeLatencies without the rounding.
func wakeLatenciesExact(ov machine.Overheads, k int) []float64 {
	p50, p90 := ov.WakeP50Ns, ov.WakeP90Ns
	if k < 1 {
		k = DefaultWakeSamples
	}
	if !(p50 > 0) || math.IsInf(p50, 0) {
		return []float64{0}
	}
	if k == 1 || !(p90 > p50) || math.IsInf(p90, 0) {
		return []float64{p50}
	}
	ln := machine.LogNormal(p50, p90)
	out := make([]float64, k)
	for i := range out {
		out[i] = ln.Quantile((float64(i) + 0.5) / float64(k))
	}
	return out
}

// charges are the wake-up latency samples and the overheads a section is
// emulated with: opt.Overheads as the engine takes them, worked out once
// per prediction rather than once per section; and the prediction's step
// budget (opt.Budget), which its emulations spend.
type charges struct {
	lat    []float64
	ov     machine.Overheads
	budget *emulate.Budget
}

// chargesOf returns the charges of a prediction made with opt: those of
// its overheads (charges) and its budget.
func (e *Emulator) chargesOf(opt emulate.Options) charges {
	ch := e.charges(opt.Overheads)
	ch.budget = opt.Budget
	return ch
}

// charges returns the charges for ov: the wake-up latency samples and
// the overheads, both rounded to the grid unless e.exactGrid. The costs
// of fork, join, chunk, spawn, channel and lock that are not positive
// are 0, so
// the engine adds them as they are.
func (e *Emulator) charges(ov machine.Overheads) charges {
	for _, x := range []*float64{&ov.ForkNs, &ov.JoinNs, &ov.ChunkNs, &ov.ChunkMigrateNs, &ov.TaskCallNs, &ov.SpawnNs, &ov.SpawnRunNs, &ov.ChanSendNs, &ov.ChanRecvNs, &ov.LockNs, &ov.LockLocalNs, &ov.LockMigrateNs} {
		if !(*x > 0) {
			*x = 0
		}
	}
	if e.exactGrid {
		return charges{lat: wakeLatenciesExact(ov, e.WakeSamples), ov: ov}
	}
	return charges{lat: wakeLatencies(ov, e.WakeSamples), ov: gridOverheads(ov)}
}

// section emulates sec with every wake-up latency sample and averages;
// with inst >= 0 it emulates sec once, with the sample rotated to inst
// (see Sections), and records no spans.
func (e *Emulator) section(sec *tree.Node, threads int, sched par.Schedule, burden float64, ch charges, spans *[]emulate.Span, offset float64, inst int) (sectionRun, error) {
	if threads < 1 || threads > MaxThreads {
		return sectionRun{}, fmt.Errorf("thread count %d: must be between 1 and %d", threads, MaxThreads)
	}
	rule, err := newSchedule(sched)
	if err != nil {
		return sectionRun{}, err
	}
	if !(burden > 0) || math.IsInf(burden, 0) {
		return sectionRun{}, fmt.Errorf("burden factor %v: must be a positive number", burden)
	}
	// A worksharing loop calls its body for each task (TaskCallNs),
	// added to each task's first leaf in the section's compact copy
	// (compileCalled). A spawned goroutine's start (SpawnRunNs) holds
	// its call already; a spawn is emulated on the same copy with
	// SpawnRunNs less the call (see below), so that a sweep of both
	// kinds keeps one copy a section.
	call := int64(math.Round(ch.ov.TaskCallNs))
	p, err := e.progs.get(sec, call)
	if err != nil {
		return sectionRun{}, err
	}
	lat, ov := ch.lat, ch.ov
	if !e.exactGrid {
		// As the overheads: the closed forms need every burdened
		// length on the grid; this moves the factor by at most
		// 1/(2·gridScale), a relative 0.012% at burden 1.
		if b := onGrid(burden); b > 0 {
			burden = b
		}
	}
	// A spawned goroutine's start costs what one of the section's mean
	// task costs: one charge for the section keeps the runs of
	// identical tasks identical for the closed forms. On one core the
	// spawner spawns the whole loop before any goroutine runs, and each
	// costs what a goroutine among that many waiting does: SpawnRunNs,
	// as for the long tasks it was measured with, whatever the task.
	// (SpawnRunFor is SpawnRunNs itself for a profile without a slope
	// or a hot start.)
	if threads > 1 {
		ov.SpawnRunNs = ov.SpawnRunFor(p.meanTask * burden)
		if !e.exactGrid {
			ov.SpawnRunNs = onGrid(ov.SpawnRunNs)
		}
	}
	// The goroutine's start and its task's first leaf, with the call
	// in it, run back to back on the core that takes the goroutine:
	// SpawnRunNs less the (burdened) call there charges what SpawnRunNs
	// alone charges before the leaf without it. Where SpawnRunNs is the
	// smaller, the copy without the call is emulated instead.
	if sched.PerTask() && call > 0 {
		if c := float64(call) * burden; ov.SpawnRunNs >= c {
			ov.SpawnRunNs -= c
		} else if p, err = e.progs.get(sec, 0); err != nil {
			return sectionRun{}, err
		}
	}
	mid := len(lat) / 2
	var s *state
	if e.pool != nil {
		if p, ok := e.pool.Get().(*state); ok {
			s = p
			defer e.pool.Put(s)
		}
	}
	if s == nil {
		s = &state{}
	}
	s.stepwise = e.stepwise
	s.exactSpawn = e.exactSpawn
	s.budget = ch.budget
	s.maxG = e.maxG
	if inst >= 0 && len(lat) > 1 {
		r, err := emulateOnce(s, p, threads, rule, burden, ov, lat[rotated(inst, len(lat))], nil, 0, 0)
		r.runs = 1
		return r, err
	}
	first, err := emulateOnce(s, p, threads, rule, burden, ov, lat[mid], spans, e.MaxSpans, offset)
	first.runs = 1
	if err != nil || first.wakes == 0 || len(lat) == 1 {
		return first, err
	}
	// The latencies ascend; a run whose wake-ups were inert stands for
	// every longer latency too. The sum starts with the median run.
	sum := first
	var known sectionRun // an inert run with a shorter latency, if any
	haveKnown := false
	for i, w := range lat {
		if i == mid {
			if first.inert && !haveKnown && !e.stepwise {
				known, haveKnown = first, true
			}
			continue
		}
		r := known
		if !haveKnown {
			r, err = emulateOnce(s, p, threads, rule, burden, ov, w, nil, 0, 0)
			if err != nil {
				return sectionRun{}, err
			}
			sum.runs++
			if r.inert && !e.stepwise {
				known, haveKnown = r, true
			}
		}
		sum.parallel += r.parallel
		sum.busy += r.busy
	}
	n := float64(len(lat))
	sum.parallel /= n
	sum.busy /= n
	return sum, nil
}

// Section returns the predicted time of one run of the top-level section
// sec (sec.Count is ignored; emulate.Predict multiplies) on threads cores
// with schedule sched, every U and L length multiplied by burden, charging
// opt.Overheads. BusyNs and IdleNs add up, over the threads cores, the
// time spent running goroutines (work and overheads) and the time idle.
func (e *Emulator) Section(sec *tree.Node, threads int, sched par.Schedule, burden float64, opt emulate.Options) (emulate.Section, error) {
	r, err := e.section(sec, threads, sched, burden, e.chargesOf(opt), e.Timeline, 0, -1)
	if err != nil {
		return emulate.Section{}, err
	}
	return r.result(sec, threads, burden), nil
}

// result is r as the emulate.Section of sec.
func (r sectionRun) result(sec *tree.Node, threads int, burden float64) emulate.Section {
	idle := float64(threads)*r.parallel - r.busy
	if idle < 0 {
		idle = 0
	}
	return emulate.Section{
		Name: sec.Name, Count: sec.Reps(), Burden: burden,
		ParallelNs: r.parallel, BusyNs: r.busy, IdleNs: idle,
	}
}

// RotateMin is how many single runs (Count 1) of top-level sections of
// one name a program needs, per wake-up latency sample, for Sections to
// emulate each of them once, with the samples taken in turn, instead of
// once per sample.
const RotateMin = 4

// Sections implements emulate.Batcher: it predicts the top-level sections
// of one program as Section does, with one saving. A program that runs a
// section of one name many times (at least RotateMin × WakeSamples single
// runs: LU's 499 elimination steps, a time-step loop) is charged the
// expected wake-up latency over all of them, not over each: its k-th
// such run is emulated once, with the wake-up sample k takes in the order
// 0, 1, …, K−1, K−1, …, 1, 0, 0, 1, … (back and forth, so that a trend
// in the sections' sizes meets every sample alike). Each sample then
// stands for a share of the runs spread over the whole program, the total
// is the same as averaging every run over every sample up to that
// spread, and the emulation costs a K-th. Sections of other names, runs
// of Count > 1 and every section while a Timeline is recorded are
// emulated with every sample, as Section does. burdens[i] is secs[i]'s
// burden factor; gaps is not used.
func (e *Emulator) Sections(secs []*tree.Node, threads int, sched par.Schedule, burdens, gaps []float64, opt emulate.Options) ([]emulate.Section, error) {
	if len(burdens) != len(secs) {
		return nil, fmt.Errorf("%d burden factors for %d sections", len(burdens), len(secs))
	}
	ch := e.chargesOf(opt)
	k := len(ch.lat)
	singles := map[string]int{}
	if k > 1 && e.Timeline == nil && !e.stepwise {
		for _, sec := range secs {
			if sec.Reps() == 1 {
				singles[sec.Name]++
			}
		}
	}
	seen := map[string]int{}
	out := make([]emulate.Section, len(secs))
	for i, sec := range secs {
		inst := -1
		if sec.Reps() == 1 && singles[sec.Name] >= RotateMin*k {
			inst = seen[sec.Name]
			seen[sec.Name]++
		}
		r, err := e.section(sec, threads, sched, burdens[i], ch, e.Timeline, 0, inst)
		if err != nil {
			return nil, fmt.Errorf("section %q: %w", sec.Name, err)
		}
		out[i] = r.result(sec, threads, burdens[i])
	}
	return out, nil
}

// rotated returns the wake-up sample of a section's inst-th run when the
// runs take the k samples in turn, back and forth.
func rotated(inst, k int) int {
	i := inst % (2 * k)
	if i >= k {
		i = 2*k - 1 - i
	}
	return i
}

// SpanRepeat is the kind of the span Trace puts after a top-level
// section that ran Count > 1 times in a row: it stands for the Count-1
// further runs, which are not drawn one by one.
const SpanRepeat = "repeat"

// Trace emulates the whole tree t at threads threads with schedule sched
// and returns its schedule as timeline spans (top-level serial code and
// every top-level section, back to back, from time 0), with the
// prediction emulate.Predict makes.
func (e *Emulator) Trace(t *tree.Tree, threads int, sched par.Schedule, opt emulate.Options) ([]emulate.Span, emulate.Result, error) {
	res, err := emulate.Predict(e.quiet(), t, threads, sched, opt)
	if err != nil {
		return nil, emulate.Result{}, err
	}
	spans := []emulate.Span{}
	ch := e.chargesOf(opt)
	var at float64
	for _, n := range t.Root.Children {
		reps := float64(n.Reps())
		switch n.Kind {
		case tree.KindU, tree.KindL:
			d := float64(n.Len) * reps
			if d > 0 {
				spans = append(spans, emulate.Span{Thread: 0, StartNs: at, EndNs: at + d, Kind: emulate.SpanSerial, Name: "serial"})
			}
			at += d
		case tree.KindSec:
			b := opt.BurdenOf(n, threads)
			r, err := e.section(n, threads, sched, b, ch, &spans, at, -1)
			if err != nil {
				return nil, emulate.Result{}, fmt.Errorf("section %q: %w", n.Name, err)
			}
			at += r.parallel
			if n.Reps() > 1 {
				d := r.parallel * (reps - 1)
				spans = append(spans, emulate.Span{Thread: 0, StartNs: at, EndNs: at + d, Kind: SpanRepeat,
					Name: fmt.Sprintf("%s ×%d more", n.Name, n.Reps()-1), Section: n.Name})
				at += d
			}
		}
	}
	return spans, res, nil
}

// quiet returns a copy of e that records no timeline.
func (e *Emulator) quiet() *Emulator {
	c := *e
	c.Timeline = nil
	return &c
}
