package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/internal/progress"
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
and nested parallelism), or with --examples takes the bundled kernels;
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
machine profile (prophet calibrate); with neither, validate measures them on
this machine first (three times, each overhead's median; about 6 seconds),
since defaults measured elsewhere (or on another day of a shared VM)
misjudge lock hand-offs and core wake-ups; --calibrate=false uses the
built-in defaults instead.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		test := fs.String("test", "", "test1, test2, or both when empty")
		samples := fs.Int("samples", 30, "samples per test")
		threads := fs.String("threads", "2", "thread counts")
		scheds := fs.String("schedule", "static,static:1,dynamic:1", "schedules")
		emus := fs.String("emulator", "ff,syn", "emulators to check")
		seed := fs.Uint64("seed", 1, "seed the samples are drawn from")
		repeats := fs.Int("repeats", 5, "real runs per measurement (the median counts)")
		maxRepeats := fs.Int("max-repeats", 0, "real runs per measurement at most, where the median of --repeats runs has not settled (0: 3×--repeats)")
		scale := fs.Float64("scale", 1, "sample (or kernel) size relative to the default")
		examples := fs.Bool("examples", false, "validate the bundled example kernels instead of generated samples")
		format := fs.String("format", "table", "output format: table or json")
		svg := fs.String("plot", "", "write a scatter plot of predicted against real speedups (SVG)")
		machinePath := fs.String("machine", "", "machine profile (default: the user config directory's, else measured now; see --calibrate)")
		calib := fs.Bool("calibrate", true, "with no machine profile, measure this machine's goroutine overheads first (false: built-in defaults)")
		tol := fs.Float64("tolerance", validate.DefaultTolerance, "compression tolerance of the recordings (relative; negative: exact lengths)")
		fastest := fs.Bool("fastest", false, "take the fastest of the repeated real runs (and syn measurements) instead of the median: less sensitive to other load")
		quiet := fs.Duration("quiet-wait", 0, "before each measurement, wait up to this long for the cores to be idle (e.g. 3s)")
		kernelList := fs.String("kernels", "", "with --examples: only these kernels (comma-separated)")
		rows := fs.Bool("rows", false, "with --format table: also list every sample's row")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return usagef("validate: takes no arguments, got %q", fs.Args())
		}
		if *test != "" && *test != "test1" && *test != "test2" {
			return usagef("--test: want test1 or test2, not %q", *test)
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
		var el []string
		for _, n := range strings.Split(*emus, ",") {
			switch n = strings.TrimSpace(n); n {
			case "ff", "syn":
				el = append(el, n)
			case "":
			default:
				return usagef("--emulator: unknown emulator %q (want ff, syn)", n)
			}
		}
		m, src, err := loadMachine(*machinePath)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if src == "" && *calib {
			bar := progress.New(e.stderr, "calibrate overheads", 0)
			ov, err := calibrate.MeasureOverheadsMedian(ctx, 3, bar.Report)
			bar.Done()
			if err != nil {
				return fmt.Errorf("validate: measuring this machine's overheads: %w", err)
			}
			m.Overheads = ov
			fmt.Fprintf(e.stderr, "no machine profile: ff charges the overheads just measured (hand-off %.0f µs after a spin window of %.1f µs, wake-up p50 %.0f µs, p90 %.0f µs, runnext back-off %.0f µs, noise %.0f/s of %.0f µs); prophet calibrate saves a profile\n",
				ov.LockHandoffNs/1e3, ov.LockSpinNs/1e3, ov.WakeP50Ns/1e3, ov.WakeP90Ns/1e3, ov.RunnextNs/1e3, ov.NoiseHz, ov.NoiseP50Ns/1e3)
		}
		rep, err := validate.Run(ctx, validate.Config{
			Test: *test, Samples: *samples, Threads: th, Schedules: ss, Seed: *seed,
			Emulators: el, Repeats: *repeats, MaxRepeats: *maxRepeats, Examples: *examples, Scale: *scale,
			Machine: m, Progress: e.stderr, Fastest: *fastest, QuietWait: *quiet, Tolerance: *tol,
			Kernels: splitList(*kernelList),
		})
		if err != nil {
			return fmt.Errorf("validate: %w", err)
		}
		if *svg != "" {
			if err := writeFileAtomic(*svg, rep.WriteSVG); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "scatter plot written to %s\n", *svg)
		}
		if *format == "json" {
			return rep.WriteJSON(e.stdout)
		}
		if *rows {
			if err := rep.WriteRows(e.stdout); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout)
		}
		return rep.WriteTable(e.stdout)
	}
	return c
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
