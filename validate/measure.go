package validate

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/cputime"
	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// measurer measures subjects.
type measurer struct {
	cfg     Config
	threads []int
	emus    []emulate.SectionEmulator
	opt     emulate.Options
	notes   []string
	noted   map[string]bool
	// gated counts the timed runs that waited for quiet cores, busy
	// those that started without them; retaken the rounds of real runs
	// taken again because the cores were busy right after them.
	gated, busy, retaken int
	// measured counts the subjects measured, extended those that took
	// more than Repeats rounds, unsettled those whose medians had still
	// not settled after MaxRepeats.
	measured, extended, unsettled int
	// rerecorded counts the recordings taken again because their work
	// was implausible beside the plain serial run (recordSerial).
	rerecorded int
	// noSlower leaves slowerNote's notes out (CompareKernel: its
	// caller says what the runs' CPU time is made of itself).
	noSlower bool
	// timed is what other programs used of this process's cores while
	// rounds of timed runs ran; start is when the measurer was made.
	timed hostload.Usage
	start time.Time
}

// quiet waits, up to cfg.QuietWait, for t idle cores before a timed run,
// and counts the runs that had to start without them.
func (m *measurer) quiet(ctx context.Context, t int) {
	if m.cfg.QuietWait <= 0 {
		return
	}
	m.gated++
	if !hostload.WaitQuiet(ctx, t, m.cfg.QuietWait) {
		m.busy++
	}
}

func (m *measurer) note(key, text string) {
	if !m.noted[key] {
		m.noted[key] = true
		m.notes = append(m.notes, text)
	}
}

// timed runs fn once after reset and returns its wall time and the CPU
// time the whole process spent meanwhile (cpu is -1 where unknown).
// Before the clock starts, warm cores spin for spin.WarmNs, so that fn
// starts on awake cores whatever ran before it (the quiet-core wait, the
// serial run): the emulators model the awake machine, as calibrate
// measures it, and a schedule's real speedup must not depend on its
// place in the round of runs (see the package documentation). fn starts
// with a clear vector register state, as par's workers do (see
// cputime.Timed).
func timed(warm int, reset, fn func()) (wall, cpu float64) {
	reset()
	return cputime.Timed(warm, fn)
}

func (m *measurer) measure(ctx context.Context, sub subject) ([]Row, error) {
	if sub.open != nil {
		if err := sub.open(&sub); err != nil {
			return nil, err
		}
	}
	// New emulators for each subject: an emulator keeps what it derives
	// from a tree (ff its compact copies, syn each section's walking
	// cost) under the tree's nodes, and one kept from subject to subject
	// would keep every recording alive to the end of the run.
	emus, err := newEmulators(m.cfg.Emulators)
	if err != nil {
		return nil, err
	}
	m.emus = emus
	runtime.GC()
	// Warm up (first-touch page faults, code paths), then record.
	sub.reset()
	sub.serial()
	if err := sub.check(); err != nil {
		return nil, fmt.Errorf("serial run: %w", err)
	}
	// Record up to three times, pooling the recordings (profiler.Repeat:
	// every interval the length the recordings agree on, since whatever
	// else the core did while a task ran only ever lengthens it), and
	// keep the last tree where every recording pooled, else the one
	// with the least work (the least disturbed of recordings whose
	// events differ); record again where that is implausible
	// (recordSerial).
	tr, err := m.recordSerial(sub)
	if err != nil {
		return nil, err
	}
	if sub.test == Examples && m.wantProbe(tr) {
		sub.probes = &[]memprobe.Raw{}
		if err := m.probe(sub, tr); err != nil {
			return nil, err
		}
	}
	rows, err := m.compare(ctx, sub, tr)
	if err != nil {
		return nil, err
	}
	if m.cfg.Keep != "" {
		// After the comparison: a kernel's memory probe stores what each
		// round measured in tr.
		path := filepath.Join(m.cfg.Keep, sub.test+"-"+sub.sample+".ppt")
		if err := tree.WriteFile(path, tr); err != nil {
			return nil, fmt.Errorf("keeping the recording: %w", err)
		}
	}
	return rows, nil
}

// keepCosts writes, with Config.Keep, the machine profile with the line
// (and spawn) costs measured beside sub's real runs, ov, as
// TEST-SAMPLE.machine.json beside its recording: prophet predict with it
// repeats ff's prediction (within what the rounds' own costs, each
// predicted with, move it from their medians').
func (m *measurer) keepCosts(sub subject, ov machine.Overheads) error {
	if m.cfg.Keep == "" {
		return nil
	}
	p := m.cfg.Machine
	p.Overheads = ov
	if err := p.Save(filepath.Join(m.cfg.Keep, sub.test+"-"+sub.sample+".machine.json")); err != nil {
		return fmt.Errorf("keeping the line costs: %w", err)
	}
	return nil
}

// recordSerial records sub's serial run up to three times, pooling the
// recordings (see measure), and returns the pooled tree. A generated
// sample whose recorded work lies outside [PlausibleLow, PlausibleHigh]
// times its plain serial run's time is recorded again, from a fresh
// pool, up to RecordTries times in all: a recording that far off is
// broken rather than disturbed (say, the profiler's own costs measured
// wrong as it started, taking away nearly all of the tasks' time), and
// every prediction from it would be off by as much. The last try is
// kept whatever its work, and the recording note (recordingNote) names
// it.
func (m *measurer) recordSerial(sub subject) (*tree.Tree, error) {
	var tr *tree.Tree
	for try := 1; ; try++ {
		var err error
		if tr, err = m.recordPooled(sub); err != nil {
			return nil, err
		}
		if sub.plain == nil || sub.test == Examples || try == RecordTries {
			return tr, nil
		}
		sub.reset()
		t0 := time.Now()
		sub.plain()
		plain := float64(time.Since(t0))
		if x := float64(tree.Work(tr.Root)) / plain; plain <= 0 || (x >= PlausibleLow && x <= PlausibleHigh) {
			return tr, nil
		}
		m.rerecorded++
	}
}

// recordPooled records sub's serial run up to three times into one
// profiler.Repeat and returns the last tree where every recording
// pooled, else the one with the least work.
func (m *measurer) recordPooled(sub subject) (*tree.Tree, error) {
	var tr *tree.Tree
	rp := &profiler.Repeat{}
	popt := profiler.Options{Build: tree.BuildOptions{Tolerance: m.cfg.Tolerance}, Repeat: rp}
	pooled := true
	for r := 0; r < min(m.cfg.Repeats, 3); r++ {
		sub.reset()
		t, err := annotate.RecordWith(popt, sub.serial)
		if err != nil {
			return nil, fmt.Errorf("recording the serial run: %w", err)
		}
		if err := sub.check(); err != nil {
			return nil, fmt.Errorf("recorded serial run: %w", err)
		}
		pooled = pooled && rp.Mismatch() == ""
		if tr == nil || pooled || tree.Work(t.Root) < tree.Work(tr.Root) {
			tr = t
		}
	}
	return tr, nil
}

// RecordTries is how many times validate records a generated sample at
// most, PlausibleLow and PlausibleHigh the range of its recorded work
// over its plain serial run's time outside which it records again (see
// measurer.recordSerial).
const (
	RecordTries   = 3
	PlausibleLow  = 0.5
	PlausibleHigh = 3.0
)

// wantProbe says whether a kernel recorded in tr is probed, as
// Config.MemoryProbe asks.
func (m *measurer) wantProbe(tr *tree.Tree) bool {
	switch m.cfg.MemoryProbe {
	case memmodel.Off:
		return false
	case memmodel.Auto:
		for _, s := range memmodel.TopSections(tr) {
			if s.Counters != nil {
				return false
			}
		}
	}
	return true
}

// probe runs the memory probe beside one more serial run of sub and
// stores in tr what it and sub's earlier probe runs measured, pooled.
// The first probe run comes before the rounds of real runs; each round
// then takes one more, so that the probe sees the machine at the same
// moments as the real runs it is compared with (see roundSet).
func (m *measurer) probe(sub subject, tr *tree.Tree) error {
	sub.reset()
	raw, err := annotate.Probe(memprobe.Options{}, sub.serial)
	if err != nil {
		return fmt.Errorf("memory probe: %w", err)
	}
	if err := sub.check(); err != nil {
		return fmt.Errorf("memory probe's serial run: %w", err)
	}
	*sub.probes = append(*sub.probes, raw)
	tr.Meta.Probe = memprobe.Analyze(*sub.probes...)
	return nil
}

// compare measures sub's real speedups, rounds of real runs with the
// replays of the emulators that measure the machine between them, and
// returns a row for each emulator's prediction for tr, schedule and
// thread count.
func (m *measurer) compare(ctx context.Context, sub subject, tr *tree.Tree) ([]Row, error) {
	var keys []key
	for _, s := range sub.schedules {
		for _, t := range m.threads {
			keys = append(keys, key{s, t})
		}
	}
	// Real kernels get the burden factors `prophet predict` applies (the
	// memory model and the machine's compute inflation); generated
	// samples spin on the clock, which neither memory traffic nor a
	// shared core can stretch, so they get none. (A fine loop's tasks
	// compute at either end, in registers: compute inflation could
	// stretch that part, which this leaves out.)
	opt := m.opt
	if sub.test == Examples {
		if burden, st := memmodel.ForTree(tr, m.cfg.Machine, memmodel.Auto); st.Burdened() {
			opt.Burden = burden
		}
	}
	rs, err := m.rounds(ctx, sub, tr, keys, opt)
	if err != nil {
		return nil, err
	}
	if m.cfg.LinesNow {
		opt.Overheads = rs.lineCosts(opt.Overheads)
		if slices.ContainsFunc(sub.schedules, par.Schedule.PerTask) {
			ov := &opt.Overheads
			if err = calibrate.MeasureSpawnCosts(ctx, ov); err != nil {
				return nil, err
			}
		}
		if err := m.keepCosts(sub, opt.Overheads); err != nil {
			return nil, err
		}
	}
	if sub.probes != nil && sub.test == Examples {
		// The rounds pooled more probe runs into tr.
		opt.Burden = nil
		if burden, st := memmodel.ForTree(tr, m.cfg.Machine, memmodel.Auto); st.Burdened() {
			opt.Burden = burden
		}
	}
	return m.rows(sub, tr, keys, rs, opt)
}
