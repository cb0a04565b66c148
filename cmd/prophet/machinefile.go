package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/emulate/syn"
	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/machine"
)

// builtinMachine is the --machine value that asks for prophet's built-in
// overheads (machine.Default) and no measurement.
const builtinMachine = "builtin"

// machineFlagDefault ends the --machine help of every command that
// predicts.
const machineFlagDefault = "(default: the user config directory's prophet/machine.json, measured and saved there on first use; " + builtinMachine + ": prophet's built-in overheads, nothing measured)"

// firstUseRepeats is how many times a first-use measurement measures the
// overheads, keeping each one's median (calibrate.MeasureOverheadsMedian),
// as validate has done: one measurement in several lands in a disturbed
// moment on a shared machine.
const firstUseRepeats = 3

// measureMachine measures this machine's goroutine overheads (the median
// of firstUseRepeats measurements), compute inflation and the
// synthesizer's walk costs, with progress bars on progress: what a
// command that predicts does once when no machine profile is saved. The
// memory fits (a minute) are left to prophet calibrate.
func measureMachine(ctx context.Context, progress io.Writer) (machine.Profile, error) {
	res, err := calibrate.Run(ctx, calibrate.Options{
		SkipMemory: true,
		Overheads: func(ctx context.Context, p func(done, total int)) (machine.Overheads, error) {
			return calibrate.MeasureOverheadsMedian(ctx, firstUseRepeats, p)
		},
		Walk: func(context.Context) (machine.Walk, error) {
			return syn.MeasureWalk(), nil
		},
		Tool:     "prophet " + version,
		Progress: progress,
	})
	return res.Profile, err
}

// machineProfile returns the machine profile that flag (a --machine
// value) names and where it came from ("" for the built-in defaults):
//   - "builtin": machine.Default, nothing read or measured;
//   - a path: the profile there, with a note on stderr when it was
//     measured on another machine (its CPU model or core count differ);
//   - "": the profile saved at machine.DefaultPath. Where there is none,
//     or it was measured on another machine, or it cannot be read, and
//     measure is true, this machine is measured (measureMachine, a few
//     seconds, progress shown) and the profile saved there for later
//     runs, with one line on stderr saying so; with measure false (a
//     command that only reads), the built-in defaults serve instead,
//     with a note where a saved profile was passed over.
func (e *env) machineProfile(flag string, measure bool) (machine.Profile, string, error) {
	if flag == builtinMachine {
		return machine.Default(), "", nil
	}
	sys := calibrate.ReadSystem()
	switch flag {
	case "":
	default:
		m, err := machine.Load(flag)
		if err != nil {
			return m, flag, err
		}
		if why := otherMachine(m, sys); why != "" {
			fmt.Fprintf(e.stderr, "prophet: note: the machine profile %s %s; its overheads are charged as given (prophet calibrate -o %s measures this one)\n", flag, why, flag)
		}
		return m, flag, nil
	}
	path, err := machine.DefaultPath()
	if err != nil {
		if !measure {
			return machine.Default(), "", nil
		}
		return e.measureFirstUse("", "no user configuration directory to keep a machine profile in ("+err.Error()+")")
	}
	m, err := machine.Load(path)
	var reason string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !measure {
			return machine.Default(), "", nil
		}
		reason = "no machine profile yet"
	case err != nil:
		reason = fmt.Sprintf("the saved machine profile cannot be used (%v)", err)
	default:
		why := otherMachine(m, sys)
		if why == "" {
			return m, path, nil
		}
		reason = fmt.Sprintf("the saved machine profile %s", why)
	}
	if !measure {
		fmt.Fprintf(e.stderr, "prophet: note: %s; built-in overheads used (prophet calibrate measures this machine)\n", reason)
		return machine.Default(), "", nil
	}
	return e.measureFirstUse(path, reason)
}

// measureFirstUse measures this machine (e.measure, else measureMachine)
// and saves the profile at path, saying why in one line. A profile is
// kept for this run only where path is "" or cannot be written, or where
// other programs used the cores while it was measured.
func (e *env) measureFirstUse(path, reason string) (machine.Profile, string, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(e.stderr, "prophet: %s: measuring this machine's goroutine overheads (a few seconds, once; --machine %s skips it)\n", reason, builtinMachine)
	measure := e.measure
	if measure == nil {
		measure = measureMachine
	}
	start := time.Now()
	meter := hostload.Start()
	m, err := measure(ctx, e.stderr)
	if err != nil {
		return m, "", fmt.Errorf("measuring this machine's overheads: %w", err)
	}
	took := time.Since(start).Round(100 * time.Millisecond)
	u := meter.Stop()
	if others, ok := u.OthersCores(); ok && others >= hostload.DisturbedCores {
		// Overheads measured beside another program are that
		// program's as much as this machine's: good enough for this
		// run, not to keep.
		fmt.Fprintf(e.stderr, "prophet: measured in %v while other programs kept %.1f of the %d cores busy, so not saved: the next run measures again\n", took, others, u.Cores)
		return m, "measured now", nil
	}
	if path == "" {
		fmt.Fprintf(e.stderr, "prophet: measured in %v; not saved, so the next run measures again\n", took)
		return m, "measured now", nil
	}
	err = os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = m.Save(path)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "prophet: measured in %v, but could not save it (%v): the next run measures again\n", took, err)
		return m, "measured now", nil
	}
	fmt.Fprintf(e.stderr, "prophet: measured in %v and saved to %s; later runs read it (prophet calibrate adds the memory-bandwidth fits)\n", took, path)
	return m, path, nil
}

// otherMachine says how profile m shows it was measured on another
// machine than sys, or "" when it matches (or does not say: a profile
// written by hand without CPU and cores).
func otherMachine(m machine.Profile, sys calibrate.System) string {
	if m.CPU == "" && m.Cores == 0 {
		return ""
	}
	if m.CPU == sys.CPU && m.Cores == sys.Cores {
		return ""
	}
	return fmt.Sprintf("was measured on another machine (%s, %d cores; this one is %s, %d cores)", m.CPU, m.Cores, sys.CPU, sys.Cores)
}
