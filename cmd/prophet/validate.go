package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/parallel-prophet/prophet/emulate/emulators"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
	"github.com/parallel-prophet/prophet/validate"
)

func validateCommand() *command {
	c := &command{
		name:    "validate",
		args:    "[--test test1|test2] [--samples N] [--threads 2,4] [--schedule ...] [--examples]",
		summary: "measure prediction error against real parallel runs",
		long: `Generates random programs shaped like the paper's Test1 (a parallel loop with
imbalance and up to two critical sections) and Test2 (Test1 with inner-loop
and nested parallelism), or with --test fine fine-grained loops (10^4 to 10^6
tasks of 50 ns to 2 µs that compute at either end, half of them with a
short critical section), or
with --examples takes the bundled kernels;
profiles each annotated serial version, predicts its speedup with ff and
syn, runs the same program really parallelized with package par, and reports
the error |predicted − real| / real per test, emulator, schedule and thread
count. A sample is reproducible from its seed.

Thread counts above this machine's cores are skipped: a real run there does
not measure the machine being predicted.

Each measurement takes --repeats rounds of real runs (and syn replays) and
compares medians. Where the runs around a median still span more than 10%
of it (runs in two modes, such as a lock convoy or not, or a disturbed
stretch), it takes more rounds, up to --max-repeats.

The goroutine overheads ff charges come from --machine, else from the saved
machine profile; with none saved, this machine is measured first (about 10
seconds, once) and the profile saved for later runs, as every command that
predicts does, since defaults measured elsewhere misjudge lock hand-offs
and core wake-ups; --calibrate=false (or --machine builtin) uses the
built-in defaults instead.

While the real runs are timed, validate watches how much of the cores
other programs use; where they kept a quarter of a core or more busy on
average, a note says the comparison was disturbed.

After each round of real runs it also measures what a cache line's move
between two cores costs (the "line ns" column), and a note says when the
runs met a machine that moved them at another speed than the machine
profile records (some cloud VMs switch between a fast and a slow mode
over minutes). --lines-now has ff charge the costs measured there
instead of the profile's.

A note also says when generated samples were recorded more than 10% off
the time their plain serial runs take (the "recorded/serial" column of
--rows). A few percent below 1 can be pauses that the plain runs carry
and a recording, pooled interval by interval, leaves out (a virtual
machine's host taking its CPU away for tens of microseconds, other
load), which the parallel runs pay too. The rest is most likely the
profiler's own cost per event, measured as it starts, differing from
what the events cost in the loop; that moves the predictions of loops
bound by a lock, their spawner or a dynamic counter by about that much.

--rows also sets each real run's CPU time over its serial run's (the "cpu
inflation" column) beside ff's (the "predicted cpu" column: the time its
threads were busy, spinning and paying overheads included, over the serial
time). Where the two differ as much as the speedups, the error is in what
the work cost the threads (a lock, a counter, memory); where they agree,
in how long the threads sat idle. A note names each prediction 10% or
more above the real speedup whose real runs took 10% more CPU time than
ff's threads (outside samples with a short lock): its tasks ran slower
side by side than recorded.

--keep DIR writes each sample's recording there; with --format json (or
--rows) for the real speedups, prophet predict DIR/fine-3.ppt then tries
a changed machine profile or emulator on the same recordings against the
same real runs, free of the noise between two validations. With
--lines-now it also writes the costs measured beside each sample's runs
as a machine profile, DIR/fine-3.machine.json, for prophet predict
--machine.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		test := fs.String("test", "", "test1, test2 or fine (a fine-grained loop: tasks of 50 ns to 2 µs); test1 and test2 when empty")
		samples := fs.Int("samples", 30, "samples per test")
		threads := fs.String("threads", "2", "thread counts")
		scheds := fs.String("schedule", "static,static:1,dynamic:1", "schedules (also guided:C, spawn, pool, errgroup; see prophet predict --help)")
		emus := fs.String("emulator", "ff,syn", "emulators to check")
		seed := fs.Uint64("seed", 1, "seed the samples are drawn from")
		repeats := fs.Int("repeats", 5, "real runs per measurement (the median counts)")
		maxRepeats := fs.Int("max-repeats", 0, "real runs per measurement at most, where the median of --repeats runs has not settled (0: 3×--repeats)")
		scale := fs.Float64("scale", 1, "sample (or kernel) size relative to the default")
		examples := fs.Bool("examples", false, "validate the bundled example kernels instead of generated samples")
		format := fs.String("format", "table", "output format: table or json")
		svg := fs.String("plot", "", "write a scatter plot of predicted against real speedups (SVG)")
		machinePath := fs.String("machine", "", "machine profile from prophet calibrate "+machineFlagDefault)
		calib := fs.Bool("calibrate", true, "with no saved machine profile, measure this machine first (false: built-in overheads, as --machine "+builtinMachine+")")
		tol := fs.Float64("tolerance", validate.DefaultTolerance, "compression tolerance of the recordings (relative; negative: exact lengths)")
		fastest := fs.Bool("fastest", false, "take the fastest of the repeated real runs (and syn measurements) instead of the median: less sensitive to other load")
		quiet := fs.Duration("quiet-wait", 0, "before each measurement, wait up to this long for the cores to be idle (e.g. 3s)")
		linesNow := fs.Bool("lines-now", false, "have ff charge the cache-line costs measured beside each sample's real runs instead of the machine profile's (lock_migrate_ns, chunk_migrate_ns and chunk_serve_ns after every round, ff predicting with each round's and taking the median; spawn_ns and spawn_run_ns for spawn and errgroup after the rounds): for machines (cloud VMs) that move cache lines at different speeds at different times")
		kernelList := fs.String("kernels", "", "with --examples: only these kernels (comma-separated)")
		rows := fs.Bool("rows", false, "with --format table: also list every sample's row")
		keep := fs.String("keep", "", "write each sample's recording, the profile its predictions came from, to this directory as TEST-SAMPLE.ppt (fine-3.ppt, examples-lu.ppt)")
		probe := fs.String("memory-probe", "auto", "with --examples: probe each kernel's memory behaviour beside bandwidth bandits (auto: where there are no hardware counters; on; off)")
		if err := parse(fs, args); err != nil {
			return err
		}
		probeMode, err := memmodel.ParseMode(*probe)
		if err != nil {
			return usagef("--memory-probe: %v", err)
		}
		if fs.NArg() != 0 {
			return usagef("validate: takes no arguments, got %q", fs.Args())
		}
		if *test != "" && *test != validate.Test1 && *test != validate.Test2 && *test != validate.Fine {
			return usagef("--test: want test1, test2 or fine, not %q", *test)
		}
		if *samples < 1 || *repeats < 1 {
			return usagef("--samples and --repeats must be at least 1")
		}
		if *maxRepeats < 0 {
			return usagef("--max-repeats must not be negative")
		}
		if err := tree.CheckTolerance(*tol); err != nil {
			return usagef("--%v", err)
		}
		if err := checkFormat(*format, "table", "json"); err != nil {
			return err
		}
		th, err := parseThreads(*threads)
		if err != nil {
			return usagef("--threads: %v", err)
		}
		ss, err := par.ParseSchedules(*scheds)
		if err != nil {
			return usagef("--schedule: %v", err)
		}
		el, err := emulators.ParseNames(*emus)
		if err != nil {
			return usagef("--emulator: %v", err)
		}
		if err := e.checked(); err != nil {
			return err
		}
		if err := checkOutputs([]string{*svg}, *machinePath); err != nil {
			return err
		}
		m, _, err := e.machineProfile(*machinePath, *calib)
		if err != nil {
			return fmt.Errorf("validate: %w", err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		rep, err := validate.Run(ctx, validate.Config{
			Test: *test, Samples: *samples, Threads: th, Schedules: ss, Seed: *seed,
			Emulators: el, Repeats: *repeats, MaxRepeats: *maxRepeats, Examples: *examples, Scale: *scale,
			Machine: m, Progress: e.stderr, Fastest: *fastest, QuietWait: *quiet, Tolerance: *tol, LinesNow: *linesNow,
			Kernels: splitList(*kernelList), MemoryProbe: probeMode, Keep: *keep,
		})
		if err != nil {
			return err // validate's errors say "validate:"
		}
		return writeValidation(e, rep, *svg, *format, *rows)
	}
	return c
}

// writeValidation writes rep: the scatter plot to svg (none when
// empty), then the report to standard output in format (table or json),
// with every row before the table when rows is set.
func writeValidation(e *env, rep *validate.Report, svg, format string, rows bool) error {
	if svg != "" {
		if err := writeFileAtomic(svg, rep.WriteSVG); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "scatter plot written to %s\n", svg)
	}
	if format == "json" {
		return rep.WriteJSON(e.stdout)
	}
	if rows {
		if err := rep.WriteRows(e.stdout); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
	}
	return rep.WriteTable(e.stdout)
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
