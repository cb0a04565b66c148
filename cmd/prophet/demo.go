package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/examples/kernels"
	"github.com/parallel-prophet/prophet/internal/cputime"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
)

func demoCommand() *command {
	c := &command{
		name:    "demo",
		args:    "[flags]",
		summary: "profile a bundled example, predict its speedups and write a report",
		long: `Runs the whole of prophet on a bundled example: profiles the annotated serial
LU reduction (or the example named by --example), shows its program tree,
predicts speedups with both emulators, measures the real parallel version
on this machine for comparison, and writes an HTML report.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		example := fs.String("example", "lu", "example to run: "+fmt.Sprint(kernels.Names()))
		scale := fs.Float64("scale", 1, "problem size relative to the example's default")
		dir := fs.String("dir", filepath.Join(os.TempDir(), "prophet-demo"), "where to write the profile and the report")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return usagef("demo: takes no arguments, got %q", fs.Args())
		}
		return demo(e, *example, *scale, *dir)
	}
	return c
}

func demo(e *env, name string, scale float64, dir string) error {
	k, err := kernels.New(name, scale)
	if err != nil {
		return usagef("demo: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	out := e.stdout
	fmt.Fprintf(out, "== 1. Profile the annotated serial program\n%s\n\n", k.Describe())

	// The serial baseline: the median of three runs (annotations off).
	var runs, cpus []float64
	for range 3 {
		k.Reset()
		d, c := cputime.Timed(0, k.Serial)
		runs, cpus = append(runs, d), append(cpus, c)
	}
	plain, plainCPU := median(runs), median(cpus)

	k.Reset()
	start := time.Now()
	t, err := annotate.Record(k.Serial)
	profiled := time.Since(start)
	if err != nil {
		return fmt.Errorf("demo: profiling %s: %w", name, err)
	}
	if err := k.Check(); err != nil {
		return fmt.Errorf("demo: %s computed a wrong result: %w", name, err)
	}
	profile := filepath.Join(dir, name+".ppt")
	if err := tree.WriteFile(profile, t); err != nil {
		return err
	}
	fmt.Fprintf(out, "Serial run %v; under the profiler %v. Profile: %s\n\n", time.Duration(plain).Round(time.Millisecond), profiled.Round(time.Millisecond), profile)
	if err := tree.WriteText(out, t, tree.TextOptions{MaxDepth: 3, MaxChildren: 4}); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 2. Predict speedups\n")
	cores := runtime.NumCPU()
	pf := predictFlags{
		threads:   "1,2,4,8,16",
		schedules: "static,static:1,dynamic:1,guided:1,spawn",
		emulators: "ff", memory: "auto",
	}
	pl, preds, err := demoPredict(e, t, profile, pf)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 3. The synthesizer replays the tree with real goroutines on this machine (%d cores)\n", cores)
	own := k.Schedule()
	sf := predictFlags{threads: fmt.Sprintf("1-%d", min(cores, 1024)), schedules: own.String(), emulators: "ff,syn", memory: "auto"}
	_, synPreds, err := demoPredict(e, t, profile, sf)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 4. The truth: the real parallel version (package par, %s)\n", own)
	for th := 2; th <= cores; th *= 2 {
		real, cpu := measureReal(k, th, plain)
		fmt.Fprintf(out, "%d threads: real speedup %.2f", th, real)
		for _, r := range synPreds.Results {
			if r.Threads == th && !r.MemoryModel {
				fmt.Fprintf(out, "  %s predicted %.2f (%+.0f%%)", r.Emulator, r.Speedup, 100*(r.Speedup-real)/real)
			}
		}
		fmt.Fprintln(out)
		if infl := cpu / plainCPU; plainCPU > 0 && cpu > 0 && infl >= 1.1 {
			fmt.Fprintf(out, "  the parallel run took %.2f× the serial run's CPU time: idle cores spun for work (Go's scheduler looks for\n"+
				"  work before it parks a thread, which slows nothing down) or its tasks ran slower side by side (memory\n"+
				"  bandwidth, cache lines moving between cores), which the emulators see only through the memory model, and\n"+
				"  that needs hardware counters\n", infl)
		}
	}

	fmt.Fprintf(out, "\n== 5. What limits it\n")
	if err := writeAnalysis(out, t, pl.machine, pl.threads); err != nil {
		return err
	}
	html := filepath.Join(dir, name+"-report.html")
	if err := writeReport(html, t, profile, pl, preds, synPreds); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nReport: %s (open it in a browser)\n", html)
	fmt.Fprintf(out, "Next: annotate your own program (see README.md), then prophet run -o my.ppt -- go run ./myprog\n")
	return nil
}

// demoPredict runs the predictions pf asks for and prints their table.
func demoPredict(e *env, t *tree.Tree, profile string, pf predictFlags) (*plan, *report.Predictions, error) {
	pl, err := pf.plan()
	if err != nil {
		return nil, nil, err
	}
	preds, err := predictAll(e, t, profile, pl)
	if err != nil {
		return nil, nil, err
	}
	return pl, preds, preds.WriteTable(e.stdout)
}

// measureReal returns the median real speedup of k's parallel version at
// th threads over the serial time serialNs, from three runs, each after
// the cores have been woken up (see spin.WarmNs), and the median CPU
// time of the process in those runs (-1 where it cannot be read).
func measureReal(k kernels.Kernel, th int, serialNs float64) (speedup, cpuNs float64) {
	prev := runtime.GOMAXPROCS(th)
	defer runtime.GOMAXPROCS(prev)
	var runs, cpus []float64
	for range 3 {
		k.Reset()
		d, c := cputime.Timed(th, func() { k.Parallel(th, k.Schedule()) })
		runs, cpus = append(runs, d), append(cpus, c)
	}
	return serialNs / median(runs), median(cpus)
}

func median[T cmp.Ordered](d []T) T {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
