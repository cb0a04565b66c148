package calibrate

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/internal/progress"
	"github.com/parallel-prophet/prophet/machine"
)

// Options tune Run.
type Options struct {
	// Memory tunes the memory microbenchmark (its Progress is set by
	// Run). SkipMemory leaves Profile.Memory nil.
	Memory     MemoryOptions
	SkipMemory bool
	// Overheads measures the goroutine overheads; nil means
	// MeasureOverheads. SkipOverheads keeps machine.Default's.
	Overheads     func(ctx context.Context, progress func(done, total int)) (machine.Overheads, error)
	SkipOverheads bool
	// SkipCompute leaves Profile.ComputeInflation nil (MeasureCompute
	// otherwise: about 0.1 s per thread count).
	SkipCompute bool
	// Walk measures the synthesizer's walk costs (wire syn.MeasureWalk);
	// nil keeps machine.Default's.
	Walk func(ctx context.Context) (machine.Walk, error)
	// Tool is the prophet version recorded in the profile.
	Tool string
	// Progress receives the progress bars; nil prints nothing.
	Progress io.Writer
	// Now is the clock for the profile's date (nil: time.Now).
	Now func() time.Time
}

// Result is a calibration's profile with what was measured on the way.
type Result struct {
	Profile machine.Profile
	// Samples are the memory microbenchmark's runs (nil with SkipMemory).
	Samples []Sample
	// System is what was read about the machine.
	System System
}

// Run calibrates this machine: system facts, the memory fits (about
// opt.Memory.Duration, 40 s by default), the goroutine overheads
// (MeasureOverheads unless replaced or skipped), then the walk hook.
// A failed memory fit is an error; so is a failed hook.
func Run(ctx context.Context, opt Options) (Result, error) {
	sys := ReadSystem()
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	p := machine.Default()
	p.CPU, p.Cores, p.LineSize = sys.CPU, sys.Cores, sys.LineSize
	p.Date = now().UTC().Format(time.RFC3339)
	p.Tool = opt.Tool
	res := Result{System: sys}

	if !opt.SkipMemory {
		mo := opt.Memory
		if mo.LineSize <= 0 {
			mo.LineSize = sys.LineSize
		}
		bar := progress.New(opt.Progress, "calibrate memory   ", 0)
		mo.Progress = bar.Report
		m, samples, err := MeasureMemory(ctx, mo)
		bar.Done()
		res.Samples = samples
		if err != nil {
			return res, fmt.Errorf("calibrating memory: %w", err)
		}
		p.Memory = m
	}
	if !opt.SkipOverheads {
		if opt.Overheads == nil {
			opt.Overheads = MeasureOverheads
		}
		bar := progress.New(opt.Progress, "calibrate overheads", 0)
		o, err := opt.Overheads(ctx, bar.Report)
		bar.Done()
		if err != nil {
			return res, fmt.Errorf("calibrating overheads: %w", err)
		}
		p.Overheads = o
		p.Defaulted = defaultOtherCores(&p.Overheads, machine.Default().Overheads, runtime.GOMAXPROCS(0))
	}
	if !opt.SkipCompute {
		bar := progress.New(opt.Progress, "calibrate compute  ", 0)
		k, err := MeasureCompute(ctx, sys.Cores, bar.Report)
		bar.Done()
		if err != nil {
			return res, fmt.Errorf("calibrating compute inflation: %w", err)
		}
		p.ComputeInflation = k
	}
	if opt.Walk != nil {
		bar := progress.New(opt.Progress, "calibrate walk     ", 1)
		w, err := opt.Walk(ctx)
		bar.Done()
		if err != nil {
			return res, fmt.Errorf("calibrating walk costs: %w", err)
		}
		p.Walk = w
	}
	res.Profile = p
	return res, nil
}

// Summary describes the calibration in a few lines for the terminal:
// each fit with its R², and how much of the cores the benchmark got (a
// busy machine makes the fits unreliable).
func (r Result) Summary() string {
	var b strings.Builder
	p := r.Profile
	fmt.Fprintf(&b, "machine: %s, %d cores, %d-byte lines, %.2f GHz (%s)\n", p.CPU, p.Cores, p.LineSize, r.System.FreqGHz, r.System.FreqNote)
	if m := p.Memory; m != nil {
		ts := make([]int, 0, len(m.Psi))
		for t := range m.Psi {
			ts = append(ts, t)
		}
		sort.Ints(ts)
		for _, t := range ts {
			f := m.Psi[t]
			fmt.Fprintf(&b, "Ψ_%d: total traffic = %s   R² %.3f  (δ %.0f–%.0f MB/s)\n", t, formula(f, "δ"), f.R2, f.MinX, f.MaxX)
		}
		fmt.Fprintf(&b, "Φ:   stall cycles per access = %s   R² %.3f  (δ^t %.0f–%.0f MB/s)\n", formula(m.Phi, "δ^t"), m.Phi.R2, m.Phi.MinX, m.Phi.MaxX)
		weak := []string{}
		for _, t := range ts {
			if m.Psi[t].R2 < 0.9 {
				weak = append(weak, fmt.Sprintf("Ψ_%d", t))
			}
		}
		if m.Phi.R2 < 0.9 {
			weak = append(weak, "Φ")
		}
		if len(weak) > 0 {
			fmt.Fprintf(&b, "weak fits (R² < 0.9): %s\n", strings.Join(weak, ", "))
		}
	}
	if share := r.CPUShare(); share > 0 && share < 0.9 {
		fmt.Fprintf(&b, "the machine was busy: benchmark workers ran %.0f%% of the time; calibrate on an idle machine for better fits\n", 100*share)
	}
	o := p.Overheads
	fmt.Fprintf(&b, "overheads: fork %.0f ns, join %.0f ns, chunk %.0f ns (+%.0f ns from another core%s, one per %.0f ns when queued), task call %.1f ns, spawn %.0f ns (+%.0f ns on the core that runs it with tasks of %.0f ns, %s), lock %.0f ns (%.1f ns beside work, +%.0f ns from another core; handoff %.0f ns%s, unlock waking a waiter %.0f ns%s, switch to a parked waiter %.0f ns, spin window %.0f ns + %.0f ns, checked every %.0f ns), wake p50 %.0f ns p90 %.0f ns%s, runnext back-off %.0f ns\n",
		o.ForkNs, o.JoinNs, o.ChunkNs, o.ChunkMigrateNs, chunkShortNote(o), o.ChunkServe(), o.TaskCallNs, o.SpawnNs, o.SpawnRunNs, o.SpawnRunTaskNs, spawnCurveNote(o), o.LockNs, o.LockLocal(), o.LockMigrateNs, o.LockHandoffNs, handoffSpreadNote(o), o.LockWakeNs, dozeNote(o), o.LockSwitchNs, o.LockSpinNs, o.LockSpinRampNs, o.LockCheckNs, o.WakeP50Ns, o.WakeP90Ns, wakeStepNote(o.WakeStepNs), o.RunnextNs)
	if note := DefaultedNote(p); note != "" {
		fmt.Fprintln(&b, note)
	}
	fmt.Fprintf(&b, "noise: %.0f hiccups a second per busy core while another runs on, p50 %.0f ns p90 %.0f ns\n", o.NoiseHz, o.NoiseP50Ns, o.NoiseP90Ns)
	fmt.Fprintf(&b, "synthesizer walk: %.0f ns per node, %.0f ns per call, %.0f ns per spin delay\n", p.Walk.NodeNs, p.Walk.CallNs, p.Walk.SpinNs)
	if len(p.ComputeInflation) > 1 {
		ts := make([]int, 0, len(p.ComputeInflation))
		for t := range p.ComputeInflation {
			ts = append(ts, t)
		}
		sort.Ints(ts)
		fmt.Fprintf(&b, "compute inflation (each of t threads computing at once, against one alone):")
		for _, t := range ts {
			fmt.Fprintf(&b, " κ_%d %.2f", t, p.ComputeInflation[t])
		}
		fmt.Fprintln(&b)
	}
	return b.String()
}

// CPUShare is the mean share of wall time the memory benchmark's workers
// were running (0 when no samples).
func (r Result) CPUShare() float64 {
	if len(r.Samples) == 0 {
		return 0
	}
	sum := 0.0
	for _, s := range r.Samples {
		sum += s.CPUShare
	}
	return sum / float64(len(r.Samples))
}

// formula writes a fit as an equation in x.
func formula(f machine.Fit, x string) string {
	switch f.Form {
	case "linear":
		return fmt.Sprintf("%.4g·%s %+.4g", f.A, x, f.B)
	case "log":
		return fmt.Sprintf("%.4g·ln(%s) %+.4g", f.A, x, f.B)
	case "power":
		return fmt.Sprintf("%.4g·%s^%.3g", f.A, x, f.B)
	}
	return "?"
}

// wakeStepNote describes the wake step for the calibration summary:
// nothing where it was not measured (machines of fewer than four cores).
func wakeStepNote(ns float64) string {
	if !(ns > 0) {
		return ""
	}
	return fmt.Sprintf(" (then one core every %.0f ns)", ns)
}

// handoffSpreadNote gives the hand-off's 90th percentile for the
// calibration summary: nothing where it was not measured.
func handoffSpreadNote(o machine.Overheads) string {
	if !(o.LockHandoffP90Ns > 0) {
		return ""
	}
	return fmt.Sprintf(" (p90 %.0f ns)", o.LockHandoffP90Ns)
}

// chunkShortNote returns the chunk move's short end for Result.Summary
// ("" where it is not measured).
func chunkShortNote(o machine.Overheads) string {
	if o.ChunkShortEndNs() == 0 {
		return ""
	}
	return fmt.Sprintf(", +%.0f ns asked again after %.0f ns", o.ChunkMigrateShortNs, o.ChunkShortTaskNs)
}

// dozeNote describes the doze (machine.Overheads.HandoffFor) for the
// calibration summary: nothing where none was found.
func dozeNote(o machine.Overheads) string {
	if !(o.LockDozeHandoffNs > 0) {
		return ""
	}
	return fmt.Sprintf("; a waiter that waited up to %.0f ns (+%.0f ns ramp): hand-off %.0f ns, unlock %.0f ns", o.LockDozeNs, o.LockDozeRampNs, o.LockDozeHandoffNs, o.LockDozeWakeNs)
}

// spawnCurveNote describes, for calibrate's summary, what o charges a
// spawned goroutine of shorter tasks (machine.Overheads.SpawnRunFor): at
// the short loop's task, and the hot start where it was measured.
func spawnCurveNote(o machine.Overheads) string {
	var parts []string
	if t := o.SpawnRunShortTaskNs; t > 0 && t < o.SpawnRunTaskNs {
		parts = append(parts, fmt.Sprintf("%.0f ns with tasks of %.0f ns", o.SpawnRunFor(t), t))
	} else if o.SpawnRunSlope > 0 {
		parts = append(parts, fmt.Sprintf("%.2f ns less per ns of shorter task", o.SpawnRunSlope))
	}
	if o.SpawnRunHotTaskNs > 0 {
		parts = append(parts, fmt.Sprintf("%.0f ns while the cores keep up, with tasks up to %.0f ns", o.SpawnRunFor(o.SpawnRunHotTaskNs), o.SpawnRunHotTaskNs))
	} else {
		parts = append(parts, "no hot start measured")
	}
	return strings.Join(parts, ", ")
}
