package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// probeBeside says whether prophet run probes memory beside its
// recording: always with on, never with off, and with auto where this
// machine gives the recording no hardware counters.
func probeBeside(mode memmodel.Mode) bool {
	switch mode {
	case memmodel.On:
		return true
	case memmodel.Off:
		return false
	}
	cs, err := profiler.HardwareCounters()
	if err != nil {
		return true
	}
	cs.Close()
	return false
}

// applyProbe stores in t, recorded to profile beside a memory probe that
// wrote its measurements to rawPath, what the probe measured, and takes
// out of the recorded runs the time its bandits added to them, unless
// pooled: then the recordings after the probed one already gave every
// interval its shortest time. A probe that measured nothing usable
// leaves t without a probe and says so; it is never an error of prophet
// run's.
func applyProbe(e *env, t *tree.Tree, rawPath, profile string, pooled bool, wall time.Duration) error {
	if len(memmodel.TopSections(t)) == 0 {
		return nil // nothing to probe
	}
	data, err := os.ReadFile(rawPath)
	if err != nil {
		return skipProbe(e, t, profile, "the program wrote no measurements (is its annotate package older than prophet's?)")
	}
	var raw memprobe.Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		return skipProbe(e, t, profile, fmt.Sprintf("unreadable measurements: %v", err))
	}
	runs, added, err := storeProbe(t, raw, pooled)
	if err != nil {
		return skipProbe(e, t, profile, err.Error())
	}
	if err := writeProfile(profile, t); err != nil {
		return err
	}
	setup, held := time.Duration(raw.SetupNs), time.Duration(raw.HeldNs)
	msg := fmt.Sprintf("memory probe: measured beside the recording; its bandits made their buffers in %s before the program started, and it held the program for %s",
		roundDur(setup), roundDur(held))
	switch {
	case pooled:
		msg += " (the later recordings replaced the runs its bandits slowed)"
	case runs > 0 && added >= time.Microsecond:
		msg += fmt.Sprintf("; its bandits slowed %d of its runs by %s, taken back out of the profile", runs, roundDur(added))
	}
	if wall > 0 {
		msg += fmt.Sprintf(": about %.0f%% of the run", 100*(setup+held+added).Seconds()/wall.Seconds())
	}
	fmt.Fprintln(e.stderr, msg)
	printProbe(e, t)
	return nil
}

// roundDur rounds d for a line of output: to 100 µs from a millisecond
// on, to the microsecond below.
func roundDur(d time.Duration) time.Duration {
	if d >= time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// storeProbe stores in t, recorded beside the memory probe that measured
// raw, what the probe measured, and, unless pooled (the recordings after
// the probed one gave every interval its shortest time), takes the time
// its bandits added back out of the recorded runs (memprobe.Correct). It
// returns how many runs it corrected and the time it took out of them;
// measurements out of range are an error and leave t as it was.
func storeProbe(t *tree.Tree, raw memprobe.Raw, pooled bool) (runs int, added time.Duration, err error) {
	probe := memprobe.Analyze(raw)
	if err := tree.Validate(&tree.Tree{Root: tree.New().Root, Meta: tree.Meta{Probe: probe}}); err != nil {
		return 0, 0, fmt.Errorf("measurements out of range: %w", err)
	}
	if !pooled {
		var ns int64
		runs, ns = memprobe.Correct(t, raw)
		added = time.Duration(ns)
	}
	t.Meta.Probe = probe
	return runs, added, nil
}

// skipProbe says why the profile has no memory probe, writes it without
// one and goes on.
func skipProbe(e *env, t *tree.Tree, profile, why string) error {
	t.Meta.Probe = nil
	fmt.Fprintf(e.stderr, "memory probe: not stored (%s); predictions will leave memory contention out\n", why)
	return writeProfile(profile, t)
}

// noProbeCores stores in t that this machine cannot be probed and why.
func noProbeCores(e *env, t *tree.Tree, profile, note string) error {
	n, _ := memprobe.Cores()
	t.Meta.Probe = &tree.MemoryProbe{Cores: n, Note: note}
	fmt.Fprintf(e.stderr, "memory probe: %s; predictions will leave memory contention out\n", strings.TrimPrefix(note, "no memory probe: "))
	return writeProfile(profile, t)
}

// printProbe shows the burden factors the probe gives each section, at
// 2 threads up to the cores it probed.
func printProbe(e *env, t *tree.Tree) {
	p := t.Meta.Probe
	if p.Note != "" {
		fmt.Fprintf(e.stderr, "memory probe: %s\n", p.Note)
	}
	var threads []int
	for th := 2; th <= max(p.Cores, 2); th *= 2 {
		threads = append(threads, th)
	}
	if threads[len(threads)-1] != p.Cores && p.Cores > 2 {
		threads = append(threads, p.Cores)
	}
	for _, sb := range memmodel.Betas(t, machine.Profile{}, memmodel.Auto, threads) {
		if sb.Source == "" {
			continue
		}
		var parts []string
		for i, th := range sb.Threads {
			parts = append(parts, fmt.Sprintf("β_%d %.2f", th, sb.Beta[i]))
		}
		fmt.Fprintf(e.stderr, "memory probe: %s: %s\n", sb.Name, strings.Join(parts, ", "))
	}
}

// writeProfile writes t, with or without the probe's measurements, to
// profile.
func writeProfile(profile string, t *tree.Tree) error {
	if err := tree.WriteFile(profile, t); err != nil {
		return fmt.Errorf("run: writing the profile: %w", err)
	}
	return nil
}
