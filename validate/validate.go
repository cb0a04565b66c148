package validate

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/emulators"
	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/internal/progress"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/sysinfo"
	"github.com/parallel-prophet/prophet/kernels"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// Examples is the Test name of rows measured on the real kernels.
const Examples = "examples"

// Config says what to validate. The zero value (after defaults) runs 30
// samples of each test at 2 threads with static, static:1 and dynamic:1,
// both emulators, 5 repeats.
type Config struct {
	// Test is Test1, Test2 or Fine, or empty for Test1 and Test2.
	// Ignored when Examples is set.
	Test string
	// Samples is the number of generated samples per test (default 30).
	Samples int
	// Threads are the thread counts to validate (default 2). Counts
	// above this machine's cores are skipped with a note: a real run
	// there does not measure the machine being predicted.
	Threads []int
	// Schedules are the schedules to validate (default static, static:1,
	// dynamic:1). In Examples mode each kernel uses its own schedule.
	Schedules []par.Schedule
	// Seed is the seed samples are drawn from; sample i of a test has
	// a seed derived from Seed, the test and i (reported in each row).
	Seed uint64
	// Emulators are the emulators to check, "ff" and/or "syn" (default
	// both).
	Emulators []string
	// Repeats is how many times each real run (serial and parallel) is
	// repeated; the median counts (default 5).
	Repeats int
	// MaxRepeats bounds the rounds of runs of a measurement whose
	// median has not settled after Repeats rounds (default 3×Repeats;
	// Repeats or less: never more than Repeats). A median has settled
	// when its confidence interval spans at most SettleWidth of it (see
	// settled), for the serial runs, each schedule's and thread count's
	// parallel runs and each synthesizer prediction. Some samples' real
	// runs are bimodal (a lock convoy forms or not), and the median of a
	// few runs lands in either mode, as does the synthesizer's, which
	// replays real mutexes: more rounds let the two agree where their
	// distributions do. Ignored with Fastest.
	MaxRepeats int
	// Fastest takes the fastest of the repeated real runs instead of
	// their median, and the synthesizer's fastest replay likewise: on a
	// machine shared with other work, the fastest run is the one least
	// disturbed.
	Fastest bool
	// QuietWait, when positive, makes every round of timed runs (the
	// serial run, one parallel run per schedule and thread count, and
	// the synthesizer's replays of them) first wait, up to this long, until a
	// short probe finds the cores it needs idle (other processes' CPU
	// time from /proc/stat over 50 ms, and a 2 ms spin per core): on a
	// machine shared with other work, runs then land in quiet moments.
	// The probe also runs after each round of real runs; a round after
	// which the cores are busy is taken again (at most Repeats times
	// per measurement). Zero does not wait or check.
	QuietWait time.Duration
	// LinesNow has ff charge, for each sample, the cache-line costs
	// measured beside its real runs instead of the machine profile's:
	// Overheads.LockMigrateNs, ChunkMigrateNs and ChunkServeNs measured
	// after each round's parallel runs (calibrate.MeasureLineCosts), ff
	// predicting once with each round's and its prediction the median over
	// the rounds as the real speedup is, and the spawn costs
	// (SpawnNs, SpawnRunNs and its slope), where it runs a spawn
	// schedule, measured after its rounds (calibrate.MeasureSpawnCosts).
	// On a machine that moves cache lines at different speeds at
	// different times (cloud VMs), the comparison then tests the model
	// against the machine the runs met. Row.LineNs is measured either
	// way.
	LinesNow bool
	// Examples validates the real kernels of package kernels
	// instead of generated samples.
	Examples bool
	// Kernels restricts Examples mode to these kernels (default all).
	Kernels []string
	// Scale multiplies the generated samples' lengths (default 1: 10 to
	// 30 ms of serial work each) or, in Examples mode, the kernels' size.
	Scale float64
	// Machine supplies the overheads ff charges and the synthesizer's
	// walk costs; a zero Profile means machine.Default().
	Machine machine.Profile
	// Tolerance is the profiler's compression tolerance for the
	// recordings (tree.BuildOptions.Tolerance; default DefaultTolerance,
	// negative: exact lengths).
	Tolerance float64
	// MemoryProbe says whether Examples mode probes each kernel's memory
	// behaviour (package memprobe) after recording it: memmodel.Auto
	// (the zero value) where the recording has no hardware counters,
	// memmodel.On always, memmodel.Off never.
	MemoryProbe memmodel.Mode
	// Progress, if not nil, receives a progress bar (samples done, time
	// left).
	Progress io.Writer
	// Keep, when not empty, is a directory (made if missing) that
	// receives each sample's recording, the profile its predictions
	// came from, as TEST-SAMPLE.ppt (fine-3.ppt, examples-lu.ppt): a
	// change to an emulator can then be tried on the same recordings
	// against the same real speedups (the rows' Real), without the real
	// runs' noise between the two. With LinesNow it also receives the
	// machine profile with the costs measured beside each sample's runs
	// (the medians of its rounds'), as TEST-SAMPLE.machine.json.
	Keep string
}

// Row is one sample predicted by one emulator at one schedule and thread
// count, with the real speedup measured.
type Row struct {
	Test string `json:"test"`
	// Sample is the sample's number, or the kernel's name in Examples
	// mode.
	Sample string `json:"sample"`
	Seed   uint64 `json:"seed"`
	// Desc says what the sample is.
	Desc      string  `json:"desc,omitempty"`
	Emulator  string  `json:"emulator"`
	Schedule  string  `json:"schedule"`
	Threads   int     `json:"threads"`
	Predicted float64 `json:"predicted"`
	Real      float64 `json:"real"`
	// Error is |Predicted − Real| / Real.
	Error float64 `json:"error"`
	// SerialNs and ParallelNs are the medians (or, with
	// Config.Fastest, the minimums) of the real runs; the serial run of
	// a generated sample is its version without annotations (see the
	// package documentation).
	SerialNs   float64 `json:"serial_ns"`
	ParallelNs float64 `json:"parallel_ns"`
	// RecordedNs is the work the profiler recorded for the serial run
	// (net of its own overhead): close to SerialNs when the recording is
	// faithful.
	RecordedNs float64 `json:"recorded_ns"`
	// Spread is the relative spread ((max − min) / median) of the real
	// parallel runs: how noisy the truth was.
	Spread float64 `json:"spread"`
	// RealLow and RealHigh are the lowest and highest of the rounds'
	// real speedups (each round's serial run over its parallel run).
	RealLow  float64 `json:"real_low"`
	RealHigh float64 `json:"real_high"`
	// Rounds is the number of rounds of real runs (and synthesizer
	// replays) behind the medians: Config.Repeats, or more where a
	// median had not settled (see Config.MaxRepeats).
	Rounds int `json:"rounds"`
	// CPUInflation is the CPU time the process spent in a real parallel
	// run over what it spent in the serial run of the same round (the
	// median over the rounds; 0 where the system has no CPU-time clock).
	// It is the work inflation of the factored-speedup view, plus the
	// time idle cores spun looking for work: near 1 when the tasks ran
	// as fast in parallel as alone, above 1 when they ran slower (memory
	// bandwidth, cache lines moving between cores, a shared core). An
	// emulator replaying the serial profile sees only what the memory
	// model adds, so a row with a large CPUInflation and a large error is
	// a memory effect, not a scheduling one.
	CPUInflation float64 `json:"cpu_inflation,omitempty"`
	// PredictedCPU is the same ratio for the prediction: the time the
	// emulated threads were busy (running tasks, paying overheads,
	// spinning for a lock or waiting on their cores for a cache line),
	// with one thread busy in the serial code between sections, over
	// the serial time; 0 where the emulator does not report busy time
	// (syn's rows). With all threads busy most of the time, a speedup
	// is about the thread count over this ratio, so a row whose
	// PredictedCPU and CPUInflation differ as much as its speedups do
	// has its error in the work the threads do (what a lock, a counter
	// or a spawn cost them), and one whose ratios agree in the time the
	// threads sat idle (parked, at a barrier, out of tasks).
	PredictedCPU float64 `json:"predicted_cpu_inflation,omitempty"`
	// Beta is the memory burden factor the prediction applied at
	// Threads, over the whole program: the top-level sections' factors
	// weighted by their work (memmodel.WorkBeta; 1: none), and
	// BetaSource where it came from (memmodel.SourceCounters,
	// memmodel.SourceProbe; empty: none).
	Beta       float64 `json:"beta,omitempty"`
	BetaSource string  `json:"beta_source,omitempty"`
	// LineNs is what a lock cost beyond an uncontended one when it and
	// its data were last used on another core (calibrate.LineMoveNs,
	// the machine profile's LockMigrateNs measured once; with
	// Config.LinesNow the LockMigrateNs measured for ff), measured after
	// each round's parallel runs: the median over the rounds; 0 where
	// not measured (one core).
	LineNs float64 `json:"line_ns,omitempty"`
	// ShortLock says that the sample's recording has a lock held for
	// short moments and much of the time (analyze.ShortLocks), at which
	// real runs fall into taking turns or into meeting at nearly every
	// other Lock, from run to run; the emulators' errors on such samples
	// are summed up apart (Summary.ShortLocks).
	ShortLock bool `json:"short_lock,omitempty"`
}

// Summary aggregates the rows of one test, emulator, schedule and thread
// count.
type Summary struct {
	Test     string  `json:"test"`
	Emulator string  `json:"emulator"`
	Schedule string  `json:"schedule"`
	Threads  int     `json:"threads"`
	Samples  int     `json:"samples"`
	AvgError float64 `json:"avg_error"`
	MaxError float64 `json:"max_error"`
	// ShortLocks is how many of the samples have a short lock
	// (Row.ShortLock); AvgErrorRest and MaxErrorRest are the errors of
	// the others (0 where there are none).
	ShortLocks   int     `json:"short_lock_samples,omitempty"`
	AvgErrorRest float64 `json:"avg_error_rest,omitempty"`
	MaxErrorRest float64 `json:"max_error_rest,omitempty"`
}

// Report is the outcome of a validation run.
type Report struct {
	Rows    []Row     `json:"rows"`
	Summary []Summary `json:"summary"`
	// Notes say, one sentence each, what was skipped and why.
	Notes []string `json:"notes,omitempty"`
	// Cores is how many threads the validation's real runs could run
	// at once (runtime.NumCPU(), or fewer under a CPU quota:
	// sysinfo.RunnableCores); ElapsedNs how long it took.
	Cores     int   `json:"cores"`
	ElapsedNs int64 `json:"elapsed_ns"`
	// LoadBefore and LoadAfter are the machine's 1-minute load averages
	// before and after the run (Linux; zero where unknown): real
	// speedups measured on a loaded machine are noisy.
	LoadBefore float64 `json:"load_before,omitempty"`
	LoadAfter  float64 `json:"load_after,omitempty"`
	// OthersCores is how many of this process's cores other programs
	// kept busy, on average, while the rounds of real runs and replays
	// were timed (from the kernel's CPU accounting less this process's
	// own CPU time; 0 where the system does not say). Disturbed is
	// OthersCores of a quarter of a core or more: the real speedups then
	// measure the contention as much as the programs, and a note says so.
	OthersCores float64 `json:"others_cores"`
	Disturbed   bool    `json:"disturbed"`
	// Overheads are the goroutine costs ff charged (Config.Machine's).
	Overheads machine.Overheads `json:"overheads"`
}

// config with defaults applied.
func (c Config) withDefaults() (Config, error) {
	if c.Samples == 0 {
		c.Samples = 30
	}
	if c.Samples < 0 {
		return c, fmt.Errorf("samples %d: must be positive", c.Samples)
	}
	if len(c.Threads) == 0 {
		c.Threads = []int{2}
	}
	for _, t := range c.Threads {
		if t < 1 {
			return c, fmt.Errorf("thread count %d: must be at least 1", t)
		}
	}
	if len(c.Schedules) == 0 {
		c.Schedules = []par.Schedule{{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 1}, {Policy: par.Dynamic, Chunk: 1}}
	}
	if len(c.Emulators) == 0 {
		c.Emulators = emulators.Names()
	}
	if c.Repeats == 0 {
		c.Repeats = 5
	}
	if c.Repeats < 0 {
		return c, fmt.Errorf("repeats %d: must be positive", c.Repeats)
	}
	if c.MaxRepeats == 0 {
		c.MaxRepeats = 3 * c.Repeats
	}
	if c.MaxRepeats < 0 {
		return c, fmt.Errorf("max repeats %d: must be positive", c.MaxRepeats)
	}
	if c.MaxRepeats < c.Repeats || c.Fastest {
		c.MaxRepeats = c.Repeats
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	if !(c.Scale > 0) || math.IsInf(c.Scale, 0) {
		return c, fmt.Errorf("scale %g: must be positive", c.Scale)
	}
	if c.Tolerance == 0 {
		c.Tolerance = DefaultTolerance
	}
	if err := tree.CheckTolerance(c.Tolerance); err != nil {
		return c, err
	}
	if c.Machine.Version == 0 {
		// Default overheads for ff; the synthesizer measures its own
		// walking costs (machine.Default has none).
		c.Machine = machine.Default()
	}
	switch c.Test {
	case "", Test1, Test2, Fine:
	default:
		return c, fmt.Errorf("unknown test %q (want %s, %s or %s)", c.Test, Test1, Test2, Fine)
	}
	return c, nil
}

// SampleSeed returns the seed of sample i of test drawn from seed: a
// splitmix64 mix, so neighbouring samples are unrelated.
func SampleSeed(seed uint64, test string, i int) uint64 {
	x := seed
	for _, c := range []byte(test) {
		x = x*31 + uint64(c)
	}
	x += uint64(i+1) * 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Run validates the emulators as cfg says: for each sample it records
// the annotated serial version (up to three times, keeping the least
// disturbed recording: the one with the least work), predicts with every emulator, schedule
// and thread count, measures the real serial and parallel runs
// (medians of cfg.Repeats, runtime.GOMAXPROCS set to the thread count),
// and reports the error of every prediction. It stops early, returning
// ctx's error, when ctx is cancelled.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	rep, m, err := begin(cfg)
	if err != nil {
		return nil, err
	}
	subjects, err := m.cfg.subjects()
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	bar := progress.New(m.cfg.Progress, "validate", len(subjects))
	defer bar.Done()
	for _, sub := range subjects {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows, err := m.measure(ctx, sub)
		if err != nil {
			return nil, fmt.Errorf("validate: %s sample %s: %w", sub.test, sub.sample, err)
		}
		rep.Rows = append(rep.Rows, rows...)
		bar.Add(1)
	}
	m.finish(rep)
	return rep, nil
}

// CompareKernel measures the real speedups of kernel k, called name,
// against the predictions for tr, a recording of its serial version
// that the caller made: rounds of real runs (serial, then the parallel
// version with its own schedule at each of cfg.Threads) and synthesizer
// replays, as Run measures every kernel with cfg.Examples, but without
// recording k again, so that the predictions compared are those of tr.
// cfg's Test, Samples, Schedules, Examples, Kernels, Scale and Tolerance
// are ignored. Its notes leave out the one on tasks that ran slower side
// by side than recorded: each row carries the CPU times behind it
// (Row.CPUInflation, Row.PredictedCPU) for the caller to say.
func CompareKernel(ctx context.Context, name string, k kernels.Kernel, tr *tree.Tree, cfg Config) (*Report, error) {
	rep, m, err := begin(cfg)
	if err != nil {
		return nil, err
	}
	m.noSlower = true
	sub := kernelSubject(name, k)
	rows, err := m.compare(ctx, sub, tr)
	if err != nil {
		return nil, fmt.Errorf("validate: %s: %w", name, err)
	}
	rep.Rows = rows
	m.finish(rep)
	return rep, nil
}

// begin applies cfg's defaults and starts a report and a measurer for
// it: the emulators made, the thread counts this machine can run.
func begin(cfg Config) (*Report, *measurer, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, nil, fmt.Errorf("validate: %w", err)
	}
	if cfg.Keep != "" {
		if err := os.MkdirAll(cfg.Keep, 0o755); err != nil {
			return nil, nil, fmt.Errorf("validate: keeping the recordings: %w", err)
		}
	}
	cores, quota := sysinfo.RunnableCores()
	rep := &Report{Cores: cores, LoadBefore: hostload.Average(), Overheads: cfg.Machine.Overheads}
	emus, err := newEmulators(cfg.Emulators)
	if err != nil {
		return nil, nil, fmt.Errorf("validate: %w", err)
	}
	var threads, skipped []int
	for _, t := range cfg.Threads {
		if t > rep.Cores {
			skipped = append(skipped, t)
		} else if !slices.Contains(threads, t) {
			threads = append(threads, t)
		}
	}
	has := fmt.Sprintf("this machine has %d cores", rep.Cores)
	if quota != "" {
		has = fmt.Sprintf("this process may run %d threads at once (%s)", rep.Cores, quota)
	}
	if len(skipped) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("thread counts %v skipped: %s, so a real run there would not measure the machine being predicted", skipped, has))
	}
	if len(threads) == 0 {
		return nil, nil, fmt.Errorf("validate: no thread count between 1 and %d: %s", rep.Cores, has)
	}
	m := &measurer{cfg: cfg, threads: threads, emus: emus, opt: emulate.Options{Overheads: cfg.Machine.Overheads, Walk: cfg.Machine.Walk}, noted: map[string]bool{}, start: time.Now()}
	return rep, m, nil
}

// newEmulators returns a new emulator of each of names. The synthesizer
// makes one timed replay per prediction: it predicts once in each round
// of real runs (see roundSet).
func newEmulators(names []string) ([]emulate.SectionEmulator, error) {
	emus := make([]emulate.SectionEmulator, len(names))
	for i, name := range names {
		e, err := emulators.New(name, emulators.Options{Replays: 1})
		if err != nil {
			return nil, err
		}
		emus[i] = e
	}
	return emus, nil
}

// finish completes rep with the measurer's notes, the machine's load
// and the summary.
func (m *measurer) finish(rep *Report) {
	cfg := m.cfg
	rep.Notes = append(rep.Notes, m.notes...)
	if m.extended > 0 {
		text := fmt.Sprintf("%d of %d measurements took more than %d rounds of runs (up to %d), their medians not settled (the runs around the median more than %.0f%% apart: runs in two modes, such as a lock convoy or not, or a disturbed stretch)", m.extended, m.measured, cfg.Repeats, cfg.MaxRepeats, 100*SettleWidth)
		if m.unsettled > 0 {
			text += fmt.Sprintf("; %d had still not settled", m.unsettled)
		}
		rep.Notes = append(rep.Notes, text)
	}
	if m.rerecorded > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d recordings were taken again because their work lay outside %.1f to %.0f times the plain serial run's time: a recording that far off is broken rather than disturbed (the profiler's own costs measured wrong as it started, say)", m.rerecorded, PlausibleLow, PlausibleHigh))
	}
	if m.retaken > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d rounds of real runs were taken again because the cores were busy right after them", m.retaken))
	}
	if m.busy > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d waits for quiet cores (before a round of real runs and replays) gave up after %v: those ran on a busy machine", m.busy, m.gated, cfg.QuietWait))
	}
	rep.LoadAfter = hostload.Average()
	rep.OthersCores, _ = m.timed.OthersCores()
	if rep.Disturbed = rep.OthersCores >= hostload.DisturbedCores; rep.Disturbed {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the comparison was disturbed: other programs kept %.1f of this machine's %d cores busy on average while the real runs were timed, so the real speedups measure that contention as much as the programs, and the errors are not the emulators'", rep.OthersCores, rep.Cores))
	} else if load, cpus := max(rep.LoadBefore, rep.LoadAfter), runtime.NumCPU(); load > float64(cpus)+0.5 {
		// Validation itself keeps every core busy; more than that is
		// someone else's work. (The load average is the machine's,
		// counted against its CPUs whatever quota this process runs
		// under.)
		rep.Notes = append(rep.Notes, fmt.Sprintf("the machine was busy (1-minute load average up to %.1f on %d cores): other work shared the cores, so the real speedups are noisy", load, cpus))
	}
	if note := lineNote(rep.Rows, cfg.Machine.Overheads.LockMigrateNs, cfg.LinesNow); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	if note := recordingNote(rep.Rows); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	rep.Summary = Summarize(rep.Rows)
	rep.ElapsedNs = int64(time.Since(m.start))
}

// lineNote says, where the cache-line moves measured beside the real
// runs (Row.LineNs) differ from the machine profile's LockMigrateNs
// (profileNs) by a factor of three and 50 ns or more at the median,
// that the machine moved cache lines at another speed than when it was
// calibrated, which ff's costs of locks and dynamic chunks follow;
// otherwise it returns "". linesNow says whether ff charged the costs
// measured beside the runs (Config.LinesNow) or the profile's.
func lineNote(rows []Row, profileNs float64, linesNow bool) string {
	var xs []float64
	for _, r := range rows {
		if r.LineNs > 0 {
			xs = append(xs, r.LineNs)
		}
	}
	if len(xs) == 0 {
		return ""
	}
	med := robust.Median(xs)
	lo, hi := slices.Min(xs), slices.Max(xs)
	if math.Abs(med-profileNs) < 50 || (med < 3*profileNs && profileNs < 3*med) {
		return ""
	}
	said := fmt.Sprintf("cache lines moved between cores in %.0f ns beside the real runs (median; %.0f to %.0f), where the machine profile measured %.0f ns (lock_migrate_ns): this machine moved them at another speed than when it was calibrated", med, lo, hi, profileNs)
	if linesNow {
		return said + "; ff charged dynamic chunks and short critical sections what was measured beside the runs, and a prediction from the profile alone differs where those costs matter (see docs/measurements.md)"
	}
	return said + ", and ff charged dynamic chunks and short critical sections at the profile's; calibrate again in the state the programs run in, or see docs/measurements.md"
}

// RecordingWidth is how far, relative to the plain serial run's time, a
// generated sample's recorded work may lie before recordingNote names
// it.
const RecordingWidth = 0.1

// recordingNote says, where generated samples' recorded work
// (Row.RecordedNs) lies more than RecordingWidth off their plain serial
// runs' time (Row.SerialNs), how many and how far, and what that does
// to the predictions. The profiler subtracts from every interval its own
// cost per event, and from every task's end the overlap its clock read
// takes away, both as measured when it starts, so that on a machine
// whose clock reads cost more or less in the loop than then (or vary),
// for one, the tasks are recorded longer or shorter than they run; a
// plain run that other load slowed reads low too. Where a loop's
// parallel time follows its tasks, the serial time and the parallel
// time grow alike and the speedup stays; where it follows a lock, the
// spawner or a dynamic counter instead, the predicted speedups move by
// about the ratio. The bundled kernels are left out: their plain serial
// runs do more than their recordings hold (first touches, setup).
// Otherwise it returns "".
func recordingNote(rows []Row) string {
	type sample struct{ test, name string }
	seen := map[sample]bool{}
	var n, off int
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		k := sample{r.Test, r.Sample}
		if r.Test == Examples || seen[k] || r.RecordedNs <= 0 || r.SerialNs <= 0 {
			continue
		}
		seen[k] = true
		n++
		if x := r.RecordedNs / r.SerialNs; math.Abs(x-1) > RecordingWidth {
			off++
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if off == 0 {
		return ""
	}
	said := fmt.Sprintf("%d of %d samples were recorded at %.2f to %.2f times what their plain serial runs took", off, n, lo, hi)
	if off == 1 {
		said = fmt.Sprintf("1 of %d samples was recorded at %.2f times what its plain serial runs took", n, lo)
	}
	return said + " (the recorded/serial column). A few percent below 1 can be pauses that the plain runs carry and a recording pooled interval by interval leaves out (a virtual machine's host taking its CPU away for tens of microseconds, other load), which the parallel runs pay as well; the rest is most likely what the profiler takes off for its own events, measured as it starts, differing from what they cost in the loop, which moves the predicted speedups of a loop bound by a lock, its spawner or a dynamic counter rather than by its tasks by about that much"
}

// DefaultTolerance is the compression tolerance of validation's
// recordings: 0.5%, finer than the profiler's default of 5%. Where tasks
// contend for a lock, which of two threads waits, and for how long,
// depends on the phase between them, and a run of tasks merged at its
// mean length moves that phase; the finer tolerance costs a few more
// nodes.
const DefaultTolerance = 0.005

// SettleWidth is the widest span, relative to their median, of the
// confidence interval of a measurement's median for which the median
// has settled (see Config.MaxRepeats and robust.Settled).
const SettleWidth = robust.SettleWidth

// OwnSchedule is the schedule summary rows of Examples mode name: each
// kernel ran with its own schedule.
const OwnSchedule = "own"

// Summarize aggregates rows per test, emulator, schedule and thread
// count, in the order the groups first appear. Rows of the real kernels
// (test Examples) are grouped across schedules, under OwnSchedule.
func Summarize(rows []Row) []Summary {
	type key struct {
		test, emu, sched string
		t                int
	}
	idx := map[key]int{}
	var out []Summary
	for _, r := range rows {
		sched := r.Schedule
		if r.Test == Examples {
			sched = OwnSchedule
		}
		k := key{r.Test, r.Emulator, sched, r.Threads}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Summary{Test: r.Test, Emulator: r.Emulator, Schedule: sched, Threads: r.Threads})
		}
		s := &out[i]
		s.Samples++
		s.AvgError += r.Error
		s.MaxError = math.Max(s.MaxError, r.Error)
		if r.ShortLock {
			s.ShortLocks++
		} else {
			s.AvgErrorRest += r.Error
			s.MaxErrorRest = math.Max(s.MaxErrorRest, r.Error)
		}
	}
	for i := range out {
		s := &out[i]
		s.AvgError /= float64(s.Samples)
		if rest := s.Samples - s.ShortLocks; rest > 0 {
			s.AvgErrorRest /= float64(rest)
		}
	}
	return out
}
