package profiler

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/gid"
	"github.com/parallel-prophet/prophet/tree"

	"runtime"

	"github.com/parallel-prophet/prophet/internal/affinity"
)

// Clock choices for Options.Clock.
const (
	// ClockAuto uses the CPU's time-stamp counter where it runs at a
	// constant rate and an event costs less with it than with
	// runtime.nanotime (both are measured at Start), and runtime.nanotime
	// otherwise.
	ClockAuto = "auto"
	// ClockTSC insists on the time-stamp counter (Start fails where it is
	// not usable).
	ClockTSC = "tsc"
	// ClockNanotime uses the Go runtime's monotonic clock.
	ClockNanotime = "nanotime"
)

// Options tune a Profiler. The zero value is the normal configuration.
type Options struct {
	// Build tunes the tree builder (compression tolerance). A zero
	// SlackNs becomes max(50 ns, 4 events' cost): differences below
	// that are measurement noise. A zero LockSlackNs becomes half an
	// event's cost: tasks that hold a lock merge only within the clock's
	// noise, since their variation decides when threads collide.
	Build tree.BuildOptions
	// Clock is ClockAuto (default), ClockTSC or ClockNanotime.
	Clock string
	// Counters opens the per-section counters; nil means
	// HardwareCounters.
	Counters CounterOpener
	// NoCounters turns the per-section counters off.
	NoCounters bool
	// Tool is the version of the annotating library, written into the
	// profile (tree.Meta.Tool).
	Tool string
	// Program is the recorded program's command line as the user gave
	// it (tree.Meta.Program); empty means os.Args, which for `go run`
	// is a temporary build path.
	Program string
	// Adopt gives the recording to the first goroutine that records an
	// event, rather than to the one that called Start: for a recording
	// started before the program's own code runs (PROPHET_PROFILE's, in
	// package initialization, while a test binary runs its tests on
	// goroutines of their own).
	Adopt bool
	// NoPin leaves the thread's CPU affinity alone (the goroutine is
	// still locked to its thread while recording).
	NoPin bool
	// EventCostNs, when positive, is used as the per-event cost instead
	// of measuring it at Start.
	EventCostNs float64
	// OverlapLossNs, when positive, is used instead of measuring at
	// Start how much of the overlap between consecutive short tasks a
	// clock read takes away (see Profiler.OverlapLossNs); negative:
	// none is subtracted. With EventCostNs given and this zero, none is
	// subtracted either, so that a recording with both costs given is
	// the same on every machine.
	OverlapLossNs float64
	// SecGapNs: an interval inside a section but outside its tasks (the
	// loop control between two TaskEnd and TaskBegin calls) shorter than
	// this is not a U node of the section: it joins the next interval, so
	// that runs of tasks are not broken by gaps of a few nanoseconds.
	// Default 100 ns; negative: every such gap is kept.
	SecGapNs int64
	// RateSample is how long Start measures the time-stamp counter's rate
	// against the monotonic clock (default 10ms).
	RateSample time.Duration
	// Repeat, when set, pools this recording with earlier recordings of
	// the same run that were given the same Repeat (see Repeat).
	Repeat *Repeat
}

// op is the kind of a buffered event.
type op uint8

const (
	opSecBegin op = iota + 1
	opSecEnd
	opTaskBegin
	opTaskEnd
	opLockBegin
	opLockEnd
	opStop
	opSetupBegin
	opSetupEnd
	opLockIndexedBegin
)

// record is one buffered event: the clock interval [from, t) that it
// closes, and the call.
type record struct {
	from, t int64
	name    string
	// arg is the lock id, or for SecEnd: bit 0 nowait, the rest the
	// 1-based index of its counter sample (0: none).
	arg int64
	op  op
}

// bufLen is how many events are buffered before the tree is built from
// them (about 24 KiB of records: they stay in the L1/L2 caches).
const bufLen = 512

// sample is one top-level section's counter reading.
type sample struct {
	Sample
	ticks int64
}

// sums accumulates one section name's counter readings.
type sums struct {
	inst, cyc, llc uint64
	ns             int64
	runs           int64
}

// Profiler records one serial run's annotation events into a program
// tree. Its event methods (SecBegin, ..., LockEnd) must be called from the
// goroutine that called Start, and not after Stop.
type Profiler struct {
	// Hot fields, touched by every event.
	owner    atomic.Uintptr // gid.G() of the goroutine recording (0: the first to call)
	n        int            // buffered records
	last     int64          // stamp where the current interval began
	depth    int            // open sections (for top-level counters)
	tsc      bool           // stamps are time-stamp counter ticks
	counting bool           // counters are on
	buf      [bufLen]record

	opt       Options
	b         *tree.Builder
	nsPerTick float64
	costTicks float64
	costNs    float64
	// lossNs is subtracted from the last interval of every task, at
	// most all of it (see OverlapLossNs); lost sums what was.
	lossNs, lost int64
	// net lengths in fixed point, 2^-32 ns (see setRate and net)
	tickQ    int64 // ns per tick
	costQ    int64 // ns per event
	rawMax   int64 // longest interval the fast path of net multiplies
	fracQ    int64 // rounding carry of net lengths, in [0, 2^32)
	carry    int64 // net ns of intervals too short to be U nodes
	minU     int64 // shortest interval kept as its own U node
	secGap   int64 // shortest interval kept as a U node of a section
	rawTicks int64 // sum of all closed intervals
	events   int64
	stack    []Annotation // open annotations; stack[0] is the root
	err      *AnnotationError
	stopped  bool

	// foreign is set by an event method called from another goroutine
	// than the owner, which returns at once without touching anything
	// else: the profile is then refused (ErrForeign).
	foreign atomic.Bool
	// pausedAt is the stamp Pause took (0: not paused), pausedTicks the
	// paused time so far.
	pausedAt, pausedTicks int64
	// heldAt is the stamp Hold took (0: not held).
	heldAt int64
	// topEnds counts the task ends of top-level sections; taskHook is
	// called when it reaches hookAt (SetTaskHook).
	topEnds, hookAt int64
	taskHook        func(ends int64) (next int64)

	counters CounterSet
	note     string // why counters are missing
	secStart int64  // stamp when the top-level section's counters began
	paused   int64  // ticks the profiler itself spent inside that section
	samples  []sample
	sums     map[string]*sums

	// siteCaches cache, per region kind, the names whose annotation
	// site sites holds (see site).
	siteCaches [2]siteCache
	sites      map[string]string

	unpin    func()
	pinNote  string
	clock    string
	recorded time.Time
}

// Start begins recording on the calling goroutine: it locks the goroutine
// to its thread and pins the thread (unless NoPin), opens the counters
// (unless NoCounters), measures the clock's rate and the profiler's own
// per-event cost, and returns a Profiler whose first interval begins when
// Start returns. Counter and pinning failures are not errors: they are
// recorded in the tree's Meta.
func Start(opt Options) (*Profiler, error) {
	p := &Profiler{opt: opt, nsPerTick: 1, sums: map[string]*sums{}, hookAt: math.MaxInt64}
	// Write the event buffer once now: the pages of a fresh allocation
	// are mapped at their first write, and each of those page faults
	// (microseconds on a VM) would otherwise fall into an interval of
	// the first bufLen events, one every page's worth of records.
	clear(p.buf[:])
	if !opt.Adopt {
		p.owner.Store(gid.G())
	}
	p.recorded = time.Now()
	var tscNote string
	switch opt.Clock {
	case "", ClockAuto, ClockTSC:
		ok, why := clock.TicksStable()
		switch {
		case ok && clock.TicksAreTSC:
			p.tsc = true
		case opt.Clock == ClockTSC && !clock.TicksAreTSC:
			return nil, errors.New("profiler: no time-stamp counter on this architecture")
		case opt.Clock == ClockTSC:
			return nil, fmt.Errorf("profiler: time-stamp counter not usable: %s", why)
		case clock.TicksAreTSC:
			tscNote = " (time-stamp counter not used: " + why + ")"
		}
	case ClockNanotime:
	default:
		return nil, fmt.Errorf("profiler: unknown clock %q (want %s, %s or %s)", opt.Clock, ClockAuto, ClockTSC, ClockNanotime)
	}

	// Pin first: the rate and cost measurements run where recording will.
	if opt.NoPin {
		runtime.LockOSThread()
		p.unpin, p.pinNote = runtime.UnlockOSThread, "thread locked, not pinned"
	} else {
		var cpu int
		cpu, p.unpin, p.pinNote = affinity.Pin()
		if p.pinNote == "" {
			p.pinNote = fmt.Sprintf("thread pinned to CPU %d", cpu)
		}
	}

	if p.tsc {
		d := opt.RateSample
		if d <= 0 {
			d = 10 * time.Millisecond
		}
		p.nsPerTick = clock.MeasureTickRate(d)
	}
	switch {
	case opt.EventCostNs > 0:
		p.costNs = opt.EventCostNs
		p.costTicks = opt.EventCostNs / p.nsPerTick
	case p.tsc:
		p.costTicks = measureEventCost(true)
		p.costNs = p.costTicks * p.nsPerTick
		if opt.Clock != ClockTSC {
			// Keep the cheaper clock (a hypervisor may trap RDTSC).
			if c := measureEventCost(false); c < p.costNs {
				tscNote = fmt.Sprintf(" (cheaper here than the time-stamp counter: %.1f against %.1f ns an event)", c, p.costNs)
				p.tsc, p.nsPerTick, p.costTicks, p.costNs = false, 1, c, c
			}
		}
	default:
		p.costTicks = measureEventCost(false)
		p.costNs = p.costTicks
	}
	p.setRate(p.nsPerTick, p.costNs)
	switch {
	case opt.OverlapLossNs > 0:
		p.lossNs = int64(math.Round(opt.OverlapLossNs))
	case opt.OverlapLossNs < 0 || opt.EventCostNs > 0:
		// None: asked for, or the costs are given (see Options).
	default:
		p.lossNs = int64(math.Round(measureOverlapLoss(p.now) * p.nsPerTick))
	}
	if p.tsc {
		p.clock = fmt.Sprintf("tsc (rdtsc, %.4f GHz measured against %s)", 1/p.nsPerTick, clock.Name)
	} else {
		p.clock = clock.Name + tscNote
	}

	if opt.NoCounters {
		p.note = "hardware counters off (not requested)"
	} else {
		open := opt.Counters
		if open == nil {
			open = HardwareCounters
		}
		c, err := open()
		switch {
		case err != nil:
			p.note = err.Error()
		case c == nil:
			p.note = "hardware counters unavailable: no counter set"
		default:
			p.counters, p.counting = c, true
		}
	}

	// Intervals shorter than two events' cost are clock noise around
	// zero (a TaskEnd right before a TaskBegin, the few instructions
	// after a LockEnd): they join the next U interval instead of
	// becoming nodes that would break runs. Totals are unchanged.
	p.minU = max(1, int64(2*p.costNs))
	p.secGap = p.minU
	switch {
	case opt.SecGapNs == 0:
		p.secGap = max(p.minU, 100)
	case opt.SecGapNs > 0:
		p.secGap = max(p.minU, opt.SecGapNs)
	}
	if opt.Build.SlackNs == 0 {
		// Lengths that differ by less than a few events' cost differ
		// by measurement noise: let such tasks merge into runs.
		opt.Build.SlackNs = max(50, int64(4*p.costNs))
	}
	if opt.Build.LockSlackNs == 0 {
		// Tasks that hold a lock keep their variation down to the
		// clock's own noise (half an event's cost: a stamp moves by a
		// few tens of cycles), since when the threads collide at the
		// lock follows from it.
		opt.Build.LockSlackNs = max(1, int64(p.costNs/2))
	}
	p.b = tree.NewBuilder(opt.Build)
	if opt.Repeat != nil {
		opt.Repeat.begin()
	}
	p.stack = append(make([]Annotation, 0, 32), Annotation{})
	p.last = p.now()
	return p, nil
}

// now reads the profiler's clock.
func (p *Profiler) now() int64 {
	if p.tsc {
		return clock.Ticks()
	}
	return clock.Now()
}

// put stamps and buffers one event.
func (p *Profiler) put(o op, name string, arg int64) {
	var t int64
	if p.tsc {
		t = clock.Ticks()
	} else {
		t = clock.Now()
	}
	// putAt, by hand: one call less on the hot path.
	r := &p.buf[p.n]
	r.from, r.t, r.name, r.arg, r.op = p.last, t, name, arg, o
	p.last = t
	p.n++
	if p.n == bufLen {
		p.flush()
	}
}

// putAt buffers one event whose stamp is t.
func (p *Profiler) putAt(t int64, o op, name string, arg int64) {
	r := &p.buf[p.n]
	r.from, r.t, r.name, r.arg, r.op = p.last, t, name, arg, o
	p.last = t
	p.n++
	if p.n == bufLen {
		p.flush()
	}
}

// mine reports whether the calling goroutine is the one recording, and
// notes a call from another one (see ErrForeign).
func (p *Profiler) mine() bool {
	g := gid.G()
	if o := p.owner.Load(); o == g || (o == 0 && p.owner.CompareAndSwap(0, g)) {
		return true
	}
	p.foreign.Store(true)
	return false
}

// Pause stops the recording's clock: the time until Resume belongs to no
// interval and to no section's counters, as if the program had not run
// it (loading the input, writing the results). Annotation calls must not
// come in between (annotate.Pause makes them no-ops). Pause while paused
// does nothing.
func (p *Profiler) Pause() {
	if !p.mine() || p.pausedAt != 0 {
		return
	}
	p.pausedAt = p.stopClock()
}

// Resume starts the clock that Pause stopped; the interval that was open
// at Pause goes on from here.
func (p *Profiler) Resume() {
	if !p.mine() || p.pausedAt == 0 {
		return
	}
	p.resumeAt(p.now())
}

// resumeAt ends the pause at stamp t.
func (p *Profiler) resumeAt(t int64) {
	p.pausedTicks += p.startClock(p.pausedAt, t)
	p.pausedAt = 0
}

// Hold stops the recording's clock while a tool that runs beside the
// program in the same run works on the program's thread (a memory probe
// starting its bandits), until Release: that time belongs to no
// interval, as the profiler's own does, and unlike Pause's it is not
// counted as the program's paused time. Annotation calls must not come
// in between. Hold while held or paused does nothing.
func (p *Profiler) Hold() {
	if !p.mine() || p.heldAt != 0 || p.pausedAt != 0 {
		return
	}
	p.heldAt = p.stopClock()
}

// Release starts the clock that Hold stopped.
func (p *Profiler) Release() {
	if !p.mine() || p.heldAt == 0 {
		return
	}
	p.startClock(p.heldAt, p.now())
	p.heldAt = 0
}

// stopClock stops the recording's clock for Pause and Hold, and the
// counters of the top-level section under way with it, and returns the
// stamp it stopped at.
func (p *Profiler) stopClock() int64 {
	t := p.now()
	if p.counting && p.depth > 0 {
		if err := p.counters.Pause(); err != nil {
			p.counterFailed(err)
		}
	}
	return t
}

// startClock starts at stamp t the clock stopped at stamp from: the
// interval open then goes on from t, and the counters count again. It
// returns the ticks the clock stood still.
func (p *Profiler) startClock(from, t int64) int64 {
	d := max(t-from, 0)
	p.last += d
	if p.counting && p.depth > 0 {
		p.paused += d
		if err := p.counters.Resume(); err != nil {
			p.counterFailed(err)
		}
	}
	return d
}

// ErrForeign is returned by Stop when an event method was called from
// another goroutine than the one that called Start: the annotated
// program must be serial, and such events are not recorded.
var ErrForeign = errors.New("annotations were called from another goroutine than the one recording; the annotated program must be serial (its parallelism is what the annotations describe), so no profile is written")

// SecBegin records the start of a parallel section.
func (p *Profiler) SecBegin(name string) {
	if !p.mine() {
		return
	}
	p.put(opSecBegin, name, 0)
	// Where the section was begun, once per name (see siteCache).
	if ptr := unsafe.StringData(name); p.siteCaches[siteSec][slot(ptr)] != ptr {
		p.newSecSite(name)
	}
	p.depth++
	if p.depth == 1 {
		if p.taskHook != nil {
			p.hookAt = p.topEnds + 1
		}
		if p.counting {
			p.beginCounters()
		}
	}
}

// SecEnd records the end of the innermost section; nowait means no
// barrier at its end.
func (p *Profiler) SecEnd(nowait bool) {
	if !p.mine() {
		return
	}
	t := p.now()
	var arg int64
	if nowait {
		arg = 1
	}
	p.depth--
	if p.depth == 0 && p.counting {
		arg |= p.endCounters(t) << 1
		p.putAt(t, opSecEnd, "", arg)
		p.last = p.now() // the counter read falls into no interval
		return
	}
	p.putAt(t, opSecEnd, "", arg)
}

// TaskBegin records the start of a task of the innermost section.
//
// It is kept out of line so that annotate's one-line wrappers inline
// into the program (recording off must stay a load and a branch).
//
//go:noinline
func (p *Profiler) TaskBegin(name string) {
	if p.mine() {
		p.put(opTaskBegin, name, 0)
		if ptr := unsafe.StringData(name); p.siteCaches[siteTask][slot(ptr)] != ptr {
			p.newTaskSite(name)
		}
	}
}

// TaskEnd records the end of the innermost task.
//
// It is kept out of line so that annotate's one-line wrappers inline
// into the program (recording off must stay a load and a branch).
//
//go:noinline
func (p *Profiler) TaskEnd() {
	if p.mine() {
		p.put(opTaskEnd, "", 0)
		if p.depth == 1 {
			p.topEnds++
			if p.topEnds >= p.hookAt {
				p.hookAt = p.taskHook(p.topEnds)
			}
		}
	}
}

// SetTaskHook has f called, from the recording goroutine, after a task
// of a top-level section ends: at the first such task end of each run
// of a top-level section, and then when the count of them (TopTaskEnds)
// reaches the count f returned (math.MaxInt64: not again in this run).
// A memory probe beside the recording switches its bandits there; f's
// time falls into the interval after the task, and what it does at
// length it holds out of the recording (Hold). A count and a comparison
// are all it costs the other task ends.
func (p *Profiler) SetTaskHook(f func(ends int64) (next int64)) {
	p.taskHook, p.hookAt = f, math.MaxInt64
}

// TopTaskEnds returns how many tasks of top-level sections have ended so
// far.
func (p *Profiler) TopTaskEnds() int64 { return p.topEnds }

// LockBegin records acquiring lock id.
//
// It is kept out of line so that annotate's one-line wrappers inline
// into the program (recording off must stay a load and a branch).
//
//go:noinline
func (p *Profiler) LockBegin(id int) {
	if p.mine() {
		p.put(opLockBegin, "", int64(id))
	}
}

// LockIndexedBegin records acquiring lock id for an indexed critical
// section (see tree.Node.Indexed); LockEnd ends it.
//
//go:noinline
func (p *Profiler) LockIndexedBegin(id int) {
	if p.mine() {
		p.put(opLockIndexedBegin, "", int64(id))
	}
}

// LockEnd records releasing lock id.
//
// It is kept out of line so that annotate's one-line wrappers inline
// into the program (recording off must stay a load and a branch).
//
//go:noinline
func (p *Profiler) LockEnd(id int) {
	if p.mine() {
		p.put(opLockEnd, "", int64(id))
	}
}

// SetupBegin records the start of per-worker setup inside a task or a
// section (see tree.Node.Setup).
//
//go:noinline
func (p *Profiler) SetupBegin() {
	if p.mine() {
		p.put(opSetupBegin, "", 0)
	}
}

// SetupEnd records the end of per-worker setup.
//
//go:noinline
func (p *Profiler) SetupEnd() {
	if p.mine() {
		p.put(opSetupEnd, "", 0)
	}
}

// OverlapLossNs returns how much is subtracted from the last interval
// of every task (at most all of it), in nanoseconds. Where a clock read
// stops the core from starting the next task's instructions before the
// last ones of the task before it complete, as on some virtual
// machines, a loop of short tasks runs slower annotated than plain, and
// each task would be recorded longer by that loss of overlap than it
// takes in the program's own loop. Start measures it (a loop of short
// computing tasks with and without a clock read between them, beyond
// the read's own cost); where reads overlap the work, it is 0.
func (p *Profiler) OverlapLossNs() float64 { return float64(p.lossNs) }

// EventCostNs returns the per-event cost that is subtracted from every
// interval.
func (p *Profiler) EventCostNs() float64 { return p.costNs }

// ClockName describes the clock the profiler reads.
func (p *Profiler) ClockName() string { return p.clock }

// CountersNote says why there are no counters ("" when there are).
func (p *Profiler) CountersNote() string { return p.note }

// flush builds the tree from the buffered events; its own time falls into
// no interval, and inside a top-level section the counters pause for it.
func (p *Profiler) flush() {
	t := p.last
	counted := p.counting && p.depth > 0
	if counted {
		if err := p.counters.Pause(); err != nil {
			p.counterFailed(err)
			counted = false
		}
	}
	p.drain()
	if counted {
		if err := p.counters.Resume(); err != nil {
			p.counterFailed(err)
		}
	}
	p.last = p.now()
	p.paused += p.last - t
}

// drain applies the buffered events to the tree.
func (p *Profiler) drain() {
	if !p.stopped {
		rp := p.opt.Repeat
		for i := 0; i < p.n; i++ {
			if rp != nil {
				rp.pool(&p.buf[i], p.nsPerTick, p.ownNs(p.buf[i].op))
			}
			p.apply(&p.buf[i])
		}
	}
	p.n = 0
	p.samples = p.samples[:0]
}

// ownNs returns what the profiler subtracts from the interval an event
// of op closes as its own: the event's cost, and at a task's end also
// the overlap loss (before clamping at zero; see net and closeTask).
func (p *Profiler) ownNs(o op) float64 {
	if o == opTaskEnd {
		return p.costNs + float64(p.lossNs)
	}
	return p.costNs
}

// Stop ends recording: it closes the last interval, checks that nothing
// is left open, restores the thread's affinity and unlocks it, closes the
// counters, and returns the tree. Top-level sections that ran several
// times carry the average of their runs' counters. On an annotation error
// it returns an *AnnotationError and no tree. Stop must be called from
// the goroutine that called Start, once.
func (p *Profiler) Stop() (*tree.Tree, error) {
	t := p.now()
	if p.stopped {
		return nil, errors.New("profiler: Stop called twice")
	}
	p.mine() // a Stop from another goroutine counts as a foreign call
	if p.pausedAt != 0 {
		p.resumeAt(t) // nothing after Pause is recorded
	}
	r := &p.buf[p.n]
	r.from, r.t, r.name, r.arg, r.op = p.last, t, "", 0, opStop
	p.n++
	tr, err := p.finish()
	if p.foreign.Load() {
		return nil, ErrForeign
	}
	return tr, err
}

// finish builds the tree from the buffered events (the last one an
// opStop) and releases the thread and the counters.
func (p *Profiler) finish() (*tree.Tree, error) {
	p.drain()
	p.stopped = true

	if p.counters != nil {
		p.counters.Close()
	}
	if p.unpin != nil {
		p.unpin()
	}

	if p.err == nil && len(p.stack) > 1 {
		a := p.stack[len(p.stack)-1]
		p.err = &AnnotationError{Problem: Unclosed, Open: &a}
	}
	if p.err != nil {
		return nil, p.err
	}

	clockNote := p.clock + "; " + p.pinNote
	if rp := p.opt.Repeat; rp != nil {
		rp.finish()
		if rp.runs > 1 && rp.off == "" {
			if rp.Capped() {
				clockNote += fmt.Sprintf("; every interval of its first %d events pooled from %d recordings", rp.Events(), rp.runs)
			} else {
				clockNote += fmt.Sprintf("; every interval pooled from %d recordings", rp.runs)
			}
		}
	}
	if p.lossNs > 0 {
		clockNote += fmt.Sprintf("; %d ns taken from each task's end: the overlap with the next task that a clock read there takes away", p.lossNs)
	}
	measured := float64(p.rawTicks)*p.nsPerTick - float64(p.events+1)*p.costNs - float64(p.lost)
	program := p.opt.Program
	if program == "" {
		program = strings.Join(os.Args, " ")
	}
	meta := tree.Meta{
		Program:      program,
		Recorded:     p.recorded.Format(time.RFC3339),
		Clock:        clockNote,
		EventCostNs:  p.costNs,
		MeasuredNs:   int64(math.Round(math.Max(measured, 0))),
		CountersNote: p.note,
		CPU:          cpuModel(),
		Tool:         p.opt.Tool,
		PausedNs:     int64(math.Round(float64(p.pausedTicks) * p.nsPerTick)),
		Sites:        p.sites,
	}
	tr, err := p.b.Finish(meta)
	if err != nil {
		return nil, fmt.Errorf("building the program tree: %w", err)
	}
	p.averageCounters(tr.Root)
	return tr, nil
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
