package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/emulators"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/internal/atomicfile"
	"github.com/parallel-prophet/prophet/internal/progress"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
	"github.com/spf13/pflag"
)

// predictFlags are the flags predict shares with demo and report.
type predictFlags struct {
	threads, schedules, emulators, memory, machine string
	// budget bounds the steps the emulations may take (0: none).
	budget float64
}

func (p *predictFlags) register(c *command, fs interface {
	StringVar(*string, string, string, string)
	Float64Var(*float64, string, float64, string)
}) {
	fs.StringVar(&p.threads, "threads", "1,2,4,8,16", "thread counts to predict (comma-separated; ranges like 1-8 allowed)")
	fs.StringVar(&p.schedules, "schedule", "static,static:1,dynamic:1,guided:1,spawn", "schedules: static, static:C, dynamic:C, guided:C, spawn (a goroutine per task), pool (a worker pool draining a channel), errgroup (a goroutine per task, at most one per thread at once)")
	fs.StringVar(&p.emulators, "emulator", "ff", "emulators: ff (fast-forward, any thread count), syn (real goroutines, up to this machine's cores)")
	fs.StringVar(&p.memory, "memory", "auto", "memory model: auto (when the profile has counters and a machine profile is found), on, off")
	fs.StringVar(&p.machine, "machine", "", "machine profile from prophet calibrate "+machineFlagDefault)
	fs.Float64Var(&p.budget, "budget", defaultBudget, "emulation steps the predictions may take in all, about half a minute of one core (0: no limit)")
}

// plan is everything needed to run predictions, parsed from flags.
type plan struct {
	threads   []int
	schedules []par.Schedule
	emulators []emulate.SectionEmulator
	mode      memmodel.Mode
	machine   machine.Profile
	machineAt string // where the profile came from, "" for built-in defaults
	budget    float64
}

// plan parses the flags into a plan without its machine profile (see
// withMachine).
func (p *predictFlags) plan() (*plan, error) {
	if !(p.budget >= 0) {
		return nil, usagef("--budget: want 0 (no limit) or a positive number of steps, not %g", p.budget)
	}
	pl := &plan{budget: p.budget}
	var err error
	if pl.threads, err = parseThreads(p.threads); err != nil {
		return nil, usagef("--threads: %v", err)
	}
	if pl.schedules, err = par.ParseSchedules(p.schedules); err != nil {
		return nil, usagef("--schedule: %v", err)
	}
	if pl.mode, err = memmodel.ParseMode(p.memory); err != nil {
		return nil, usagef("--memory: %v", err)
	}
	if pl.emulators, err = emulators.Parse(p.emulators, emulators.Options{}); err != nil {
		return nil, usagef("--emulator: %v", err)
	}
	return pl, nil
}

// withMachine sets pl's machine profile from the --machine flag
// (env.machineProfile: measured on first use).
func (p *predictFlags) withMachine(e *env, pl *plan) error {
	var err error
	pl.machine, pl.machineAt, err = e.machineProfile(p.machine, true)
	return err
}

// profileCommand parses args into fs for a command that reads one
// profile and takes --format (one of formats), --threads and --machine:
// usage errors first, then the profile, then the machine profile
// (measured on first use when measure is set, see env.machineProfile).
// The flags are passed as fs's pointers: they hold their values only
// after parsing.
func profileCommand(e *env, fs *pflag.FlagSet, args []string, format *string, formats []string, threads, machinePath *string, measure bool, outputs ...*string) (*tree.Tree, []int, machine.Profile, error) {
	if err := parse(fs, args); err != nil {
		return nil, nil, machine.Profile{}, err
	}
	path, err := oneFile(fs, "profile")
	if err != nil {
		return nil, nil, machine.Profile{}, err
	}
	if err := checkFormat(*format, formats...); err != nil {
		return nil, nil, machine.Profile{}, err
	}
	th, err := parseThreads(*threads)
	if err != nil {
		return nil, nil, machine.Profile{}, usagef("--threads: %v", err)
	}
	if err := e.checked(); err != nil {
		return nil, nil, machine.Profile{}, err
	}
	for _, out := range outputs {
		if err := checkOutputs([]string{*out}, path, *machinePath); err != nil {
			return nil, nil, machine.Profile{}, err
		}
	}
	t, err := tree.ReadFile(path)
	if err != nil {
		return nil, nil, machine.Profile{}, err
	}
	m, _, err := e.machineProfile(*machinePath, measure)
	return t, th, m, err
}

// load parses the prediction flags (usage errors first), reads the
// profile at path and then the machine profile (measured on first use):
// the preamble of every command that predicts.
func (p *predictFlags) load(e *env, path string) (*plan, *tree.Tree, error) {
	pl, err := p.plan()
	if err != nil {
		return nil, nil, err
	}
	if err := e.checked(); err != nil {
		return nil, nil, err
	}
	t, err := tree.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if err := p.withMachine(e, pl); err != nil {
		return nil, nil, err
	}
	return pl, t, nil
}

// sweepSize is the number of predictions one sweep of pl makes.
func (pl *plan) sweepSize() int { return len(pl.emulators) * pl.rowsEach() }

// perTask reports whether pl predicts a schedule with a goroutine per
// task (spawn, errgroup).
func (pl *plan) perTask() bool { return slices.ContainsFunc(pl.schedules, par.Schedule.PerTask) }

// rowsEach is the number of predictions each emulator makes in one sweep
// of pl.
func (pl *plan) rowsEach() int { return len(pl.threads) * len(pl.schedules) }

// predictAll runs every prediction of pl on t. With the memory model
// applied and a burden factor other than 1 for some section, it runs the
// grid twice, without and with the factors.
func predictAll(e *env, t *tree.Tree, profile string, pl *plan) (*report.Predictions, error) {
	gc := relaxGC()
	defer gc.restore()
	burden, status := memmodel.ForTree(t, pl.machine, pl.mode)
	if pl.mode == memmodel.On && !status.Applied {
		return nil, fmt.Errorf("--memory on: %s", status)
	}
	out := &report.Predictions{Profile: profile, SerialNs: float64(tree.Work(t.Root)), Memory: status.String(),
		MemorySource: status.Source, Betas: memmodel.Betas(t, pl.machine, pl.mode, pl.threads)}
	passes := []func(*tree.Node, int) float64{nil}
	if status.Burdened() && burdensChange(t, burden, pl.threads) {
		passes = append(passes, burden)
	}
	if err := pl.checkBudget(t, pl.emulators, len(passes)*pl.rowsEach()); err != nil {
		return nil, err
	}
	total := len(passes) * pl.sweepSize()
	bar := progress.New(e.stderr, "predicting", total)
	done := 0
	for _, b := range passes {
		// Each pass has its share of the budget, so that the rows of
		// the first cannot spend what the second needs.
		opt := pl.options(pl.budget/float64(len(passes)), pl.sweepSize())
		opt.Burden = b
		sw, err := emulate.RunSweep(t, pl.emulators, pl.threads, pl.schedules, opt, func(d, _ int) {
			bar.Set(done + d)
			gc.follow()
		})
		if err != nil {
			bar.Stop()
			return nil, err
		}
		done += pl.sweepSize()
		out.Results = append(out.Results, sw.Results...)
		for _, n := range sw.Notes {
			// The passes skip the same rows for the same reasons.
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	bar.Done()
	if ns := t.Meta.PausedNs; ns > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("the recording was paused for %s (annotate.Pause): that part of the program's run is in no prediction", tree.FormatNs(ns)))
	}
	if len(out.Results) == 0 {
		// Every row was left out: say why instead of an empty table.
		return nil, fmt.Errorf("no prediction to show: %s", strings.Join(out.Notes, "; "))
	}
	if pl.machineAt == "" {
		out.Notes = append(out.Notes, "overheads are prophet's built-in defaults; run prophet calibrate for this machine's own")
	} else if note := calibrate.DefaultedNote(pl.machine); note != "" && slices.Max(pl.threads) > 1 {
		out.Notes = append(out.Notes, note)
	}
	if slices.Max(pl.threads) > 1 {
		if a, err := analyze.Analyze(t, analyze.Options{Overheads: pl.machine.Overheads, Threads: []int{1}}); err == nil {
			out.Notes = append(out.Notes, report.ShortLockNotes(a)...)
		}
		if pl.perTask() && !slices.ContainsFunc(pl.emulators, emulate.Measures) {
			out.Notes = append(out.Notes, report.FineSpawnNotes(t)...)
		}
	}
	return out, nil
}

func predictCommand() *command {
	c := &command{
		name:    "predict",
		args:    "FILE [flags]",
		summary: "predict speedups for thread counts, schedules and emulators",
		long: `Predicts the speedup of the program recorded in FILE (from prophet run) for
every thread count, schedule and emulator asked for. The fast-forward
emulator (ff) computes the parallel schedule on an abstract machine of any
size; the synthesizer (syn) replays the program tree with real goroutines on
this machine, up to its core count. Burden factors from the memory model
stretch computation when the profile has hardware counters and a machine
profile is available.

Schedules: static, static:C, dynamic:C and guided:C are OpenMP's, as package
par runs them (a team of one worker per thread; the caller is worker 0).
spawn starts a goroutine per task (go f(i) in a loop, then wg.Wait). pool is
the worker-pool idiom: the caller fills a buffered channel with the task
indices and one goroutine per thread drains it (for i := range jobs). errgroup
is golang.org/x/sync/errgroup with SetLimit(threads): a goroutine per task,
the caller blocking in Go while that many run.

The predictions take at most --budget emulation steps in all (about half a
minute of one core). ff takes long runs of identical tasks in closed form,
in a few thousand steps whatever their length, but a goroutine per task
(spawn, errgroup) can take a step or more a task. A prediction that runs out
of its share is estimated instead from a sample of each large section's
tasks (16 windows spread through the section, at least 100,000 tasks and
5 ms of work a thread in all, at most half the section; its time scaled by
its work), marked ~ in the table and sampled in CSV and JSON, with a note
naming it; one that has no section that large, or whose sample runs out
too, is left out, and a note names it.

Examples:
  prophet predict lu.ppt
  prophet predict lu.ppt --threads 1-16 --schedule static:1,dynamic:1 --format csv
  prophet predict lu.ppt --schedule dynamic:1,pool,errgroup
  prophet predict lu.ppt --emulator ff,syn --threads 1,2
  prophet predict lu.ppt --timeline lu-trace.json --plot lu.svg`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		var pf predictFlags
		pf.register(c, fs)
		format := fs.String("format", "table", "output format: table, json or csv")
		timeline := fs.String("timeline", "", "write the ff schedule of the first --schedule at the largest --threads as Chrome trace-event JSON, gzip-compressed when the name ends in .gz (open in Perfetto)")
		plot := fs.String("plot", "", "write the speedup curves as an SVG file")
		if err := parse(fs, args); err != nil {
			return err
		}
		path, err := oneFile(fs, "profile")
		if err != nil {
			return err
		}
		if err := checkFormat(*format, "table", "json", "csv"); err != nil {
			return err
		}
		if !e.checkOnly {
			if err := checkOutputs([]string{*timeline, *plot}, path, pf.machine); err != nil {
				return err
			}
		}
		pl, t, err := pf.load(e, path)
		if err != nil {
			return err
		}
		preds, err := predictAll(e, t, path, pl)
		if err != nil {
			return err
		}
		if *timeline != "" {
			if err := writeTimeline(e.stderr, *timeline, t, pl); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "timeline written to %s (open it in https://ui.perfetto.dev or chrome://tracing)\n", *timeline)
		}
		if *plot != "" {
			if err := writeFileAtomic(*plot, func(w io.Writer) error {
				return report.SpeedupPlot(w, report.PlotInput{Results: preds.Results, Title: path})
			}); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "speedup plot written to %s\n", *plot)
		}
		switch *format {
		case "json":
			return preds.WriteJSON(e.stdout)
		case "csv":
			// CSV has no place for them: the notes (rows left out, and
			// why) go to stderr.
			for _, n := range preds.Notes {
				fmt.Fprintf(e.stderr, "note: %s\n", n)
			}
			return preds.WriteCSV(e.stdout)
		}
		return preds.WriteTable(e.stdout)
	}
	return c
}

// maxTimelineSpans bounds a timeline (about 120 bytes of JSON each), so
// that the file stays small enough to open in a browser.
const maxTimelineSpans = 200_000

// burdensChange reports whether burden gives a top-level section of t a
// factor other than 1 at any of threads. Where it gives none (a memory
// probe that found no slowdown on this machine), a burdened pass would
// repeat the plain one row for row, at the cost of the whole sweep.
func burdensChange(t *tree.Tree, burden func(*tree.Node, int) float64, threads []int) bool {
	opt := emulate.Options{Burden: burden}
	for _, s := range memmodel.TopSections(t) {
		for _, th := range threads {
			if opt.BurdenOf(s, th) != 1 {
				return true
			}
		}
	}
	return false
}

// writeTimeline writes the ff schedule of the first schedule at the largest
// thread count of pl.
func writeTimeline(stderr io.Writer, path string, t *tree.Tree, pl *plan) error {
	th := pl.threads[len(pl.threads)-1]
	s := pl.schedules[0]
	e := ff.New()
	e.MaxSpans = maxTimelineSpans
	if err := pl.checkBudget(t, []emulate.SectionEmulator{e}, 1); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	opt := pl.options(pl.budget, 0)
	if burden, status := memmodel.ForTree(t, pl.machine, pl.mode); status.Burdened() {
		opt.Burden = burden // the timeline shows what the prediction assumed
	}
	spans, _, err := e.Trace(t, th, s, opt)
	if err != nil {
		return fmt.Errorf("timeline: %w", overBudget(err))
	}
	if len(spans) >= maxTimelineSpans {
		fmt.Fprintf(stderr, "timeline: the schedule has more than %d slices; the file holds the first %d (up to %s)\n",
			maxTimelineSpans, len(spans), tree.FormatNs(int64(spans[len(spans)-1].EndNs)))
	}
	meta := map[string]any{"threads": th, "schedule": s.String(), "emulator": "ff"}
	return writeFileAtomic(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return report.WriteTrace(w, spans, meta)
		}
		// Perfetto opens gzip-compressed traces as they are.
		zw := gzip.NewWriter(w)
		if err := report.WriteTrace(zw, spans, meta); err != nil {
			return err
		}
		return zw.Close()
	})
}

// checkOutputs checks, before any work, that every non-empty path of
// outs can be written as a regular file and is none of inputs (see
// atomicfile.Check): a command never replaces a device or FIFO, nor
// destroys what it reads.
func checkOutputs(outs []string, inputs ...string) error {
	for _, out := range outs {
		if out == "" {
			continue
		}
		if _, err := atomicfile.Check(out, inputs...); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes path through a temporary file renamed into place,
// so a failure never leaves a half-written file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}

// options returns the emulation options of the plan's machine profile,
// with a budget of steps, which every emulation made with them spends:
// shared among rows predictions of sweeps (emulate.NewBudget), or 0 for
// predictions made one by one; steps of 0 is no limit. Without a
// calibrated profile the synthesizer's walk costs are zero
// (machine.Default), so that it measures them on this machine itself.
func (pl *plan) options(steps float64, rows int) emulate.Options {
	return emulate.Options{Overheads: pl.machine.Overheads, Walk: pl.machine.Walk, Budget: emulate.NewBudget(steps, rows)}
}
