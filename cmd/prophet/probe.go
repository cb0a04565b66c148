package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/internal/progress"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/tree"
)

// wantProbe says whether prophet run probes memory after recording t:
// always with on, never with off, and with auto where the profile has
// top-level sections and none got counters.
func wantProbe(mode memmodel.Mode, t *tree.Tree) bool {
	switch mode {
	case memmodel.On:
		return true
	case memmodel.Off:
		return false
	}
	secs := memmodel.TopSections(t)
	for _, s := range secs {
		if s.Counters != nil {
			return false
		}
	}
	return len(secs) > 0
}

// probeProgram runs argv a second time as a memory probe run
// (annotate.EnvProbe) and stores what it measured in t, which the
// program's plain run recorded to profile in plainWall. A probe run
// that fails leaves t without a probe and says so; it is never an error
// of prophet run's.
func probeProgram(e *env, argv, env []string, profile string, t *tree.Tree, plainWall time.Duration) error {
	if note := memprobe.NoCoresNote(); note != "" {
		// Not worth a second run: the profile says why instead.
		n, _ := memprobe.Cores()
		t.Meta.Probe = &tree.MemoryProbe{Cores: n, Note: note}
		fmt.Fprintf(e.stderr, "memory probe: %s; predictions will leave memory contention out\n", strings.TrimPrefix(note, "no memory probe: "))
		if err := tree.WriteFile(profile, t); err != nil {
			return fmt.Errorf("run: writing the profile: %w", err)
		}
		return nil
	}
	outName, errName, cleanup, err := childFiles(filepath.Dir(profile), "probe", ".json")
	if err != nil {
		return fmt.Errorf("run: memory probe: %w", err)
	}
	defer cleanup()

	fmt.Fprintf(e.stderr, "memory probe: running %s again beside bandwidth bandits on the other cores (the plain run took %s)\n",
		filepath.Base(argv[0]), plainWall.Round(10*time.Millisecond))
	began := time.Now()
	// No input or output: its output was seen in the plain run.
	probeEnv := append([]string{annotate.EnvProbe + "=" + outName, annotate.EnvProbeProfile + "=" + profile}, env...)
	cmd, got, err := startChild(argv, probeEnv, errName, nil, nil, nil)
	if err != nil {
		return skipProbe(e, t, fmt.Sprintf("cannot run %s again: %v", argv[0], err))
	}
	stop := showProbeProgress(e, plainWall, began)
	runErr := cmd.Wait()
	stop()
	if sig := got(); sig != nil {
		return &exitStatus{code: 130, msg: fmt.Sprintf("%v received during the memory probe; no profile written", sig)}
	}
	took := time.Since(began)
	if msg := childError(errName); msg != "" {
		return skipProbe(e, t, msg)
	}
	if runErr != nil {
		_, how := childStatus(runErr)
		return skipProbe(e, t, "the probe run "+how)
	}
	data, err := os.ReadFile(outName)
	if err != nil {
		return skipProbe(e, t, "the probe run wrote no measurements")
	}
	var raw memprobe.Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		return skipProbe(e, t, fmt.Sprintf("unreadable measurements: %v", err))
	}
	t.Meta.Probe = memprobe.Analyze(t, raw)
	if err := tree.Validate(t); err != nil {
		return skipProbe(e, t, fmt.Sprintf("measurements out of range: %v", err))
	}
	if err := tree.WriteFile(profile, t); err != nil {
		return fmt.Errorf("run: writing the probed profile: %w", err)
	}
	fmt.Fprintf(e.stderr, "memory probe: done in %s (%.2f× the plain run)\n", took.Round(10*time.Millisecond),
		took.Seconds()/max(plainWall.Seconds(), 1e-9))
	printProbe(e, t)
	return nil
}

// skipProbe says why the profile has no memory probe and goes on.
func skipProbe(e *env, t *tree.Tree, why string) error {
	t.Meta.Probe = nil
	fmt.Fprintf(e.stderr, "memory probe: not stored (%s); predictions will leave memory contention out\n", why)
	return nil
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

// showProbeProgress draws a progress bar of the probe run against the
// plain run's time until the returned function is called.
func showProbeProgress(e *env, plainWall time.Duration, began time.Time) func() {
	total := max(int(plainWall.Milliseconds()), 1)
	bar := progress.New(e.stderr, "memory probe", total)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				ms := int(time.Since(began).Milliseconds())
				if ms > total {
					total = ms + ms/10
					bar.SetTotal(total)
				}
				bar.Set(ms)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		bar.Set(total)
		bar.Done()
	}
}
