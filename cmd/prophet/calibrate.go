package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/emulate/syn"
	"github.com/parallel-prophet/prophet/machine"
)

func calibrateCommand() *command {
	c := &command{
		name:    "calibrate",
		args:    "[-o FILE] [--overheads]",
		summary: "measure this machine: goroutine overheads, memory-bandwidth fits",
		long: `Measures the machine prophet runs on and writes a machine profile (JSON):
the costs of goroutine constructs (team fork and join, dynamic chunk
dispatch, what a fetch costs when the counter's line moves, after long
tasks and short ones, and how fast the counter serves queued workers, spawn,
an uncontended mutex Lock back to back and beside computed work, mutex
hand-off and the Unlock that wakes a waiter, after short waits and
long ones, worker wake-up latency and, on four cores or more, how far
apart a team's workers start) and the
machine's noise (how often and how long a busy core loses its goroutine to
an interrupt while the others run on) that the fast-forward emulator charges, the synthesizer's
tree-walking costs, and the memory model's fits: total memory traffic of t
threads against one thread's (Ψ_t) and stall cycles per DRAM access
against traffic (Φ). Takes about a minute
on 2 cores. With --overheads only the goroutine costs are measured (about 10
seconds on 2 cores: each overhead the median of three measurements).

demo, predict, report, whatif, analyze and validate read the profile from
--machine FILE, or from the default path (the user's configuration
directory, prophet/machine.json), which is where calibrate writes when -o is
not given. Where none is saved there, or the one saved was measured on
another machine, they measure the overheads as --overheads does and save
them there first.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		out := fs.StringP("output", "o", "", "where to write the machine profile (default: the user config directory's prophet/machine.json)")
		onlyOverheads := fs.Bool("overheads", false, "measure only the goroutine overheads and walk costs (skip the memory benchmark)")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return usagef("calibrate: takes no arguments, got %q", fs.Args())
		}
		if err := e.checked(); err != nil {
			return err
		}
		path := *out
		if path == "" {
			def, err := machine.DefaultPath()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(def), 0o755); err != nil {
				return fmt.Errorf("calibrate: %w", err)
			}
			path = def
		}
		// Before the minute of measuring.
		if err := checkOutputs([]string{path}); err != nil {
			return fmt.Errorf("calibrate: %w", err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		res, err := calibrate.Run(ctx, calibrate.Options{
			SkipMemory: *onlyOverheads,
			Overheads: func(ctx context.Context, p func(done, total int)) (machine.Overheads, error) {
				return calibrate.MeasureOverheadsMedian(ctx, firstUseRepeats, p)
			},
			Walk: func(context.Context) (machine.Walk, error) {
				return syn.MeasureWalk(), nil
			},
			Tool:     "prophet " + version,
			Progress: e.stderr,
		})
		if err != nil {
			return fmt.Errorf("calibrate: %w", err)
		}
		if err := res.Profile.Save(path); err != nil {
			return err
		}
		fmt.Fprint(e.stdout, res.Summary())
		fmt.Fprintf(e.stderr, "machine profile written to %s\n", path)
		return nil
	}
	return c
}
