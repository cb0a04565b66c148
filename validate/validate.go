package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/emulate/syn"
	"github.com/parallel-prophet/prophet/examples/kernels"
	"github.com/parallel-prophet/prophet/internal/cputime"
	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/internal/progress"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// Examples is the Test name of rows measured on the real kernels.
const Examples = "examples"

// Config says what to validate. The zero value (after defaults) runs 30
// samples of each test at 2 threads with static, static:1 and dynamic:1,
// both emulators, 5 repeats.
type Config struct {
	// Test is Test1, Test2, or empty for both. Ignored when Examples is
	// set.
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
	// Examples validates the real kernels of package examples/kernels
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
	// Progress, if not nil, receives a progress bar (samples done, time
	// left).
	Progress io.Writer
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
	// Config.Fastest, the minimums) of the real runs.
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
}

// Report is the outcome of a validation run.
type Report struct {
	Rows    []Row     `json:"rows"`
	Summary []Summary `json:"summary"`
	// Notes say, one sentence each, what was skipped and why.
	Notes []string `json:"notes,omitempty"`
	// Cores is runtime.NumCPU() where the validation ran; ElapsedNs
	// how long it took.
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

// subject is something validate can measure: a generated program or a
// kernel.
type subject struct {
	test, sample, desc string
	seed               uint64
	reset              func()
	serial             func()
	parallel           func(threads int, s par.Schedule)
	check              func() error
	schedules          []par.Schedule
	// open, when not nil, fills in the rest just before measuring.
	open func(s *subject) error
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
		c.Emulators = []string{"ff", "syn"}
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
	case "", Test1, Test2:
	default:
		return c, fmt.Errorf("unknown test %q (want %s or %s)", c.Test, Test1, Test2)
	}
	return c, nil
}

// newEmulator returns the emulator called name. The synthesizer makes
// one timed replay per prediction: measure has it predict once in each
// round of real runs.
func newEmulator(name string) (emulate.SectionEmulator, error) {
	switch name {
	case "ff":
		return ff.New(), nil
	case "syn":
		return syn.New(syn.Options{Repeats: 1}), nil
	}
	return nil, fmt.Errorf("unknown emulator %q (want ff or syn)", name)
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
// are ignored.
func CompareKernel(ctx context.Context, name string, k kernels.Kernel, tr *tree.Tree, cfg Config) (*Report, error) {
	rep, m, err := begin(cfg)
	if err != nil {
		return nil, err
	}
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
	rep := &Report{Cores: runtime.NumCPU(), LoadBefore: hostload.Average(), Overheads: cfg.Machine.Overheads}
	emus := make([]emulate.SectionEmulator, len(cfg.Emulators))
	for i, name := range cfg.Emulators {
		if emus[i], err = newEmulator(name); err != nil {
			return nil, nil, fmt.Errorf("validate: %w", err)
		}
	}
	var threads, skipped []int
	for _, t := range cfg.Threads {
		if t > rep.Cores {
			skipped = append(skipped, t)
		} else if !slices.Contains(threads, t) {
			threads = append(threads, t)
		}
	}
	if len(skipped) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("thread counts %v skipped: this machine has %d cores, so a real run there would not measure the machine being predicted", skipped, rep.Cores))
	}
	if len(threads) == 0 {
		return nil, nil, fmt.Errorf("validate: no thread count between 1 and this machine's %d cores", rep.Cores)
	}
	m := &measurer{cfg: cfg, threads: threads, emus: emus, opt: emulate.Options{Overheads: cfg.Machine.Overheads, Walk: cfg.Machine.Walk}, noted: map[string]bool{}, start: time.Now()}
	return rep, m, nil
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
	} else if load := max(rep.LoadBefore, rep.LoadAfter); load > float64(rep.Cores)+0.5 {
		// Validation itself keeps every core busy; more than that is
		// someone else's work.
		rep.Notes = append(rep.Notes, fmt.Sprintf("the machine was busy (1-minute load average up to %.1f on %d cores): other work shared the cores, so the real speedups are noisy", load, rep.Cores))
	}
	rep.Summary = Summarize(rep.Rows)
	rep.ElapsedNs = int64(time.Since(m.start))
}

// subjects lists what cfg asks to measure.
func (c Config) subjects() ([]subject, error) {
	var out []subject
	if c.Examples {
		names := c.Kernels
		if len(names) == 0 {
			names = kernels.Names()
		}
		known := kernels.Names()
		for _, name := range names {
			if !slices.Contains(known, name) {
				return nil, fmt.Errorf("unknown example %q (have %s)", name, strings.Join(known, ", "))
			}
			// The kernel (and its input) is made only when measured.
			out = append(out, subject{test: Examples, sample: name, open: func(s *subject) error {
				k, err := kernels.New(name, c.Scale)
				if err != nil {
					return err
				}
				*s = kernelSubject(name, k)
				return nil
			}})
		}
		return out, nil
	}
	tests := []string{Test1, Test2}
	if c.Test != "" {
		tests = []string{c.Test}
	}
	for _, test := range tests {
		for i := 0; i < c.Samples; i++ {
			seed := SampleSeed(c.Seed, test, i)
			p, err := Generate(test, seed, c.Scale)
			if err != nil {
				return nil, err
			}
			out = append(out, subject{
				test: test, sample: strconv.Itoa(i), seed: seed, desc: p.Desc,
				reset: func() {}, serial: p.Serial, parallel: p.Parallel, check: func() error { return nil },
				schedules: c.Schedules,
			})
		}
	}
	return out, nil
}

// kernelSubject is kernel k, called name, as a subject measured with
// its own schedule.
func kernelSubject(name string, k kernels.Kernel) subject {
	return subject{
		test: Examples, sample: name, desc: k.Describe(),
		reset: k.Reset, serial: k.Serial, parallel: k.Parallel, check: k.Check,
		schedules: []par.Schedule{k.Schedule()},
	}
}

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

// roundRange returns the lowest and highest of the rounds' speedups,
// ser[i] / par[i] (zeros for no rounds).
func roundRange(ser, par []float64) (low, high float64) {
	rs := robust.Ratios(ser, par)
	if len(rs) == 0 {
		return 0, 0
	}
	return slices.Min(rs), slices.Max(rs)
}

// cpuRatio returns the median of the rounds' ratios of parallel to
// serial CPU time, or 0 when a round has none.
func cpuRatio(par, ser []float64) float64 {
	rs := make([]float64, 0, len(par))
	for i := range par {
		if par[i] < 0 || !(ser[i] > 0) {
			return 0
		}
		rs = append(rs, par[i]/ser[i])
	}
	if len(rs) == 0 {
		return 0
	}
	return robust.Median(rs)
}

// DefaultTolerance is the compression tolerance of validation's
// recordings: 0.5%, finer than the profiler's default of 5%. Where tasks
// contend for a lock, which of two threads waits, and for how long,
// depends on the phase between them, and a run of tasks merged at its
// mean length moves that phase; the finer tolerance costs a few more
// nodes.
const DefaultTolerance = 0.005

func (m *measurer) measure(ctx context.Context, sub subject) ([]Row, error) {
	if sub.open != nil {
		if err := sub.open(&sub); err != nil {
			return nil, err
		}
	}
	runtime.GC()
	// Warm up (first-touch page faults, code paths), then record.
	sub.reset()
	sub.serial()
	if err := sub.check(); err != nil {
		return nil, fmt.Errorf("serial run: %w", err)
	}
	// Record up to three times, pooling the recordings (profiler.Repeat:
	// every interval the shortest it took in any of them, since whatever
	// else the core did while a task ran only ever lengthens it), and
	// keep the tree with the least work: the pooled one, or, where the
	// recordings' events differ, the one least disturbed.
	var tr *tree.Tree
	popt := profiler.Options{Build: tree.BuildOptions{Tolerance: m.cfg.Tolerance}, Repeat: &profiler.Repeat{}}
	for r := 0; r < min(m.cfg.Repeats, 3); r++ {
		sub.reset()
		t, err := annotate.RecordWith(popt, sub.serial)
		if err != nil {
			return nil, fmt.Errorf("recording the serial run: %w", err)
		}
		if err := sub.check(); err != nil {
			return nil, fmt.Errorf("recorded serial run: %w", err)
		}
		if tr == nil || tree.Work(t.Root) < tree.Work(tr.Root) {
			tr = t
		}
	}

	return m.compare(ctx, sub, tr)
}

// compare measures sub's real speedups, rounds of real runs with
// synthesizer replays between them, and returns a row for each
// emulator's prediction for tr, schedule and thread count.
func (m *measurer) compare(ctx context.Context, sub subject, tr *tree.Tree) ([]Row, error) {
	// Real runs, interleaved so that drifting machine load touches
	// serial and parallel runs alike.
	type key struct {
		s par.Schedule
		t int
	}
	var keys []key
	for _, s := range sub.schedules {
		for _, t := range m.threads {
			keys = append(keys, key{s, t})
		}
	}
	maxThreads := slices.Max(m.threads)
	// Real kernels get the burden factors `prophet predict` applies (the
	// memory model and the machine's compute inflation); generated
	// samples spin on the clock, which neither memory traffic nor a
	// shared core can stretch, so they get none.
	opt := m.opt
	if sub.test == Examples {
		if burden, st := memmodel.ForTree(tr, m.cfg.Machine, memmodel.Auto); st.Burdened() {
			opt.Burden = burden
		}
	}
	// The synthesizer measures this machine as the real runs do, so it
	// takes part in their rounds: after each round's real runs, it
	// predicts every schedule and thread count once (one warm-up and one
	// timed replay), and its prediction is the same statistic over the
	// rounds as the real speedup's, from the rounds kept. Its replays
	// taken back to back after all the real runs shared one stretch of
	// the machine's load, and where a sample's runs are bimodal (a lock
	// convoy or not), several of them fell into the slow mode together.
	// synPar[sk] holds emulator sk.i's parallel time per round.
	type synKey struct {
		i int
		k key
	}
	synPar := map[synKey][]float64{}
	synErr := map[synKey]error{}
	serial := make([]float64, 0, m.cfg.Repeats)
	par := make(map[key][]float64, len(keys))
	serialCPU := make([]float64, 0, m.cfg.Repeats)
	parCPU := make(map[key][]float64, len(keys))
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	redo := m.cfg.Repeats // rounds that may be taken again
	// unsettled reports whether a median that counts has not settled.
	unsettled := func() bool {
		if !robust.Settled(serial) {
			return true
		}
		for _, xs := range par {
			if !robust.Settled(xs) {
				return true
			}
			// The speedup itself: serial and parallel times can each
			// look settled while their rounds' ratios fall in two
			// modes.
			if !robust.Settled(robust.Ratios(serial, xs)) {
				return true
			}
		}
		for _, xs := range synPar {
			if !robust.Settled(xs) {
				return true
			}
		}
		return false
	}
	m.measured++
	r, extended := 0, false
	for ; r < m.cfg.Repeats || (r < m.cfg.MaxRepeats && unsettled()); r++ {
		if r == m.cfg.Repeats && !extended {
			extended = true // once: a round taken again comes back here
			m.extended++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// One wait for quiet cores per round of runs.
		m.quiet(ctx, maxThreads)
		meter := hostload.Start()
		runtime.GOMAXPROCS(procs)
		ser, serCPU := timed(procs, sub.reset, sub.serial)
		round := make(map[key]float64, len(keys))
		roundCPU := make(map[key]float64, len(keys))
		for _, k := range keys {
			runtime.GOMAXPROCS(k.t)
			round[k], roundCPU[k] = timed(k.t, sub.reset, func() { sub.parallel(k.t, k.s) })
			if err := sub.check(); err != nil {
				return nil, fmt.Errorf("parallel run, %s, %d threads: %w", k.s, k.t, err)
			}
		}
		runtime.GOMAXPROCS(procs)
		roundSyn := map[synKey]float64{}
		for i, e := range m.emus {
			if _, ok := e.(*syn.Emulator); !ok {
				continue
			}
			for _, k := range keys {
				sk := synKey{i, k}
				if synErr[sk] != nil || !predicts(e, k.t) {
					continue
				}
				res, err := emulate.Predict(e, tr, k.t, k.s, opt)
				if err != nil {
					synErr[sk] = err
					continue
				}
				roundSyn[sk] = res.ParallelNs
			}
		}
		m.timed.Add(meter.Stop())
		// A round after which the cores are no longer free may have
		// been disturbed too: take it again (a bounded number of
		// times). The check looks at the machine only, never at the
		// times measured.
		if m.cfg.QuietWait > 0 && redo > 0 && !hostload.CoresFree(maxThreads) {
			redo--
			m.retaken++
			r--
			continue
		}
		serial = append(serial, ser)
		serialCPU = append(serialCPU, serCPU)
		for _, k := range keys {
			par[k] = append(par[k], round[k])
			parCPU[k] = append(parCPU[k], roundCPU[k])
		}
		for sk, p := range roundSyn {
			synPar[sk] = append(synPar[sk], p)
		}
	}
	runtime.GOMAXPROCS(procs)
	if extended && unsettled() {
		m.unsettled++
	}
	stat := robust.Median
	if m.cfg.Fastest {
		stat = slices.Min[[]float64]
	}
	serialMed := stat(serial)
	recorded := float64(tree.Work(tr.Root))

	var rows []Row
	for _, k := range keys {
		pm := stat(par[k])
		real := serialMed / pm
		cpuInfl := cpuRatio(parCPU[k], serialCPU)
		low, high := roundRange(serial, par[k])
		if note := superlinearNote(sub, k.s, k.t, real, cpuInfl); note != "" {
			m.note("superlinear/"+sub.test+"/"+sub.sample+"/"+k.s.String()+"/"+strconv.Itoa(k.t), note)
		}
		for i, e := range m.emus {
			if !predicts(e, k.t) {
				m.note(e.Name()+"/"+strconv.Itoa(k.t), fmt.Sprintf("%s predicts up to %d threads on this machine; no %s rows for %d threads", e.Name(), e.(emulate.Limited).MaxThreads(), e.Name(), k.t))
				continue
			}
			var res emulate.Result
			var err error
			if _, isSyn := e.(*syn.Emulator); isSyn {
				sk := synKey{i, k}
				if err = synErr[sk]; err == nil {
					res.Speedup = recorded / stat(synPar[sk])
				}
			} else {
				res, err = emulate.Predict(e, tr, k.t, k.s, opt)
			}
			if errors.Is(err, syn.ErrTooManyThreads) {
				m.note(e.Name()+"/"+strconv.Itoa(k.t), fmt.Sprintf("%s cannot predict %d threads on this machine: %v", e.Name(), k.t, err))
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("predicting with %s, %s, %d threads: %w", e.Name(), k.s, k.t, err)
			}
			rows = append(rows, Row{
				Test: sub.test, Sample: sub.sample, Seed: sub.seed, Desc: sub.desc,
				Emulator: e.Name(), Schedule: k.s.String(), Threads: k.t,
				Predicted: res.Speedup, Real: real, Error: math.Abs(res.Speedup-real) / real,
				SerialNs: serialMed, ParallelNs: pm, RecordedNs: recorded, Spread: robust.Spread(par[k]), Rounds: len(serial),
				RealLow: low, RealHigh: high,
				CPUInflation: cpuInfl,
			})
		}
	}
	return rows, nil
}

// superlinearNote says why a real speedup above the thread count gets
// no prediction near it, or "" when it is within noise of the count
// (superlinearSlack). The emulators replay the serial run's task
// lengths, so no schedule of them beats t-fold. Where the parallel run
// also used less CPU time than the serial one (cpuInfl below
// 1 − superlinearSlack), it did less work: tasks running at once can
// load each other's input lines into the shared cache, which one after
// the other they do not. Where it did not
// (or the CPU time is unknown), the serial runs' wall time, not their
// work, was long: other load on the cores.
func superlinearNote(sub subject, s par.Schedule, t int, real, cpuInfl float64) string {
	if real <= float64(t)*(1+superlinearSlack) {
		return ""
	}
	name := sub.sample
	if sub.test != Examples {
		name = sub.test + " sample " + sub.sample
	}
	head := fmt.Sprintf("%s, %s: the real speedup %.2f on %d threads is superlinear", name, s, real, t)
	if cpuInfl > 0 && cpuInfl < 1-superlinearSlack {
		return fmt.Sprintf("%s: the parallel run did less work (its CPU time was %.2f of the serial run's), from caches its threads share or together hold; the emulators replay the serial run's task lengths and cannot predict more than %d-fold", head, cpuInfl, t)
	}
	cpu := "its CPU time is unknown"
	if cpuInfl > 0 {
		cpu = fmt.Sprintf("its CPU time was %.2f of the serial run's", cpuInfl)
	}
	return fmt.Sprintf("%s, yet the parallel run did no less work (%s): other load on the cores likely slowed the serial runs", head, cpu)
}

// superlinearSlack is the relative margin above the thread count (and
// below a CPU-time ratio of 1) that superlinearNote takes for noise.
const superlinearSlack = 0.03

// predicts reports whether emulator e predicts t threads on this
// machine (the synthesizer only up to its cores).
func predicts(e emulate.SectionEmulator, t int) bool {
	l, ok := e.(emulate.Limited)
	return !ok || l.MaxThreads() <= 0 || t <= l.MaxThreads()
}

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
	}
	for i := range out {
		out[i].AvgError /= float64(out[i].Samples)
	}
	return out
}
