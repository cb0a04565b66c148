package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/emulate/emulators"
	"github.com/parallel-prophet/prophet/internal/cputime"
	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/sysinfo"
	"github.com/parallel-prophet/prophet/kernels"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
	"github.com/parallel-prophet/prophet/validate"
)

func demoCommand() *command {
	c := &command{
		name:    "demo",
		args:    "[flags]",
		summary: "profile a bundled example, predict its speedups and write a report",
		long: `Runs the whole of prophet on a bundled example: profiles the annotated serial
LU reduction (or the example named by --example), shows its program tree,
predicts speedups with both emulators, measures the real parallel version
on this machine for comparison, and writes an HTML report.

The first run on a machine measures its goroutine overheads (about 10
seconds) and saves them, as every command that predicts does; later runs
read them. The real speedups are medians of rounds of real runs, with more
rounds while the runs around the median still disagree, shown with the
range of the rounds; ff's predictions there charge the cost of moving a
cache line between cores measured beside those runs, as validate
--lines-now does, since some machines (cloud VMs among them) move lines
at different speeds at different times. Where the parallel runs took
more CPU time than the serial run, it sets ff's own figure beside theirs
and says what the rest can be. The demo first waits a few seconds for
idle cores, and where other programs used the cores while the real runs
were timed, it says that the comparison was disturbed instead of
reporting an error.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		example := fs.String("example", "lu", "example to run: "+fmt.Sprint(kernels.Names()))
		scale := fs.Float64("scale", 1, "problem size relative to the example's default")
		dir := fs.String("dir", filepath.Join(os.TempDir(), "prophet-demo"), "where to write the profile and the report")
		machinePath := fs.String("machine", "", "machine profile from prophet calibrate "+machineFlagDefault)
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return usagef("demo: takes no arguments, got %q", fs.Args())
		}
		if !(*scale > 0) || math.IsInf(*scale, 0) {
			return usagef("--scale: want a positive number, not %g", *scale)
		}
		if !slices.Contains(kernels.Names(), *example) {
			return usagef("--example: unknown example %q (have %s)", *example, strings.Join(kernels.Names(), ", "))
		}
		if err := e.checked(); err != nil {
			return err
		}
		return demo(e, *example, *scale, *dir, *machinePath)
	}
	return c
}

// demoQuietWait is how long the demo waits for idle cores before it
// times the real runs.
const demoQuietWait = 3 * time.Second

func demo(e *env, name string, scale float64, dir, machinePath string) error {
	k, err := kernels.New(name, scale)
	if err != nil {
		return usagef("demo: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	// A real run at more threads than a CPU quota allows measures the
	// quota: the synthesizer and the real runs stop there.
	cores, quota := sysinfo.RunnableCores()
	pf := predictFlags{
		threads:   "1,2,4,8,16",
		schedules: "static,static:1,dynamic:1,guided:1,spawn",
		emulators: "ff", memory: "auto", machine: machinePath,
	}
	pl, err := pf.plan()
	if err != nil {
		return err
	}
	// Measured on first use, before any output of the demo's own.
	if err := pf.withMachine(e, pl); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	out := e.stdout
	fmt.Fprintf(out, "== 1. Profile the annotated serial program\n%s\n\n", k.Describe())

	// The serial baseline: the median of three runs (annotations off).
	var runs []float64
	for range 3 {
		k.Reset()
		d, _ := cputime.Timed(0, k.Serial)
		runs = append(runs, d)
	}
	plain := robust.Median(runs)

	// Recorded as prophet run records: with the memory probe beside the
	// recording where there are no hardware counters.
	k.Reset()
	probing := probeBeside(memmodel.Auto)
	start := time.Now()
	var t *tree.Tree
	var raw memprobe.Raw
	if probing {
		t, raw, err = annotate.RecordProbed(profiler.Options{}, memprobe.Options{}, k.Serial)
	} else {
		t, err = annotate.Record(k.Serial)
	}
	profiled := time.Since(start)
	if err != nil {
		return fmt.Errorf("demo: profiling %s: %w", name, err)
	}
	if err := k.Check(); err != nil {
		return fmt.Errorf("demo: %s computed a wrong result: %w", name, err)
	}
	t.Meta.Program = fmt.Sprintf("the %s example of prophet demo (go run ./examples/%s)", name, name)
	probeNote := "Memory model: from the hardware counters recorded (no memory probe needed)."
	under := "under the profiler"
	if probing {
		if probeNote, err = demoProbe(t, raw); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		under += " with the memory probe beside it"
	}
	profile := filepath.Join(dir, name+".ppt")
	if err := tree.WriteFile(profile, t); err != nil {
		return err
	}
	fmt.Fprintf(out, "Serial run %v; %s %v. Profile: %s\n", time.Duration(plain).Round(time.Millisecond), under, profiled.Round(time.Millisecond), profile)
	fmt.Fprintf(out, "%s\n\n", probeNote)
	if err := tree.WriteText(out, t, tree.TextOptions{MaxDepth: 3, MaxChildren: 4}); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 2. Predict speedups\n")
	preds, err := predictAll(e, t, profile, pl)
	if err != nil {
		return err
	}
	if err := preds.WriteTable(out); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 3. The synthesizer replays the tree with real goroutines on this machine (%d cores)\n", cores)
	own := k.Schedule()
	spl := *pl
	spl.threads = nil
	for th := 1; th <= min(cores, 1024); th++ {
		spl.threads = append(spl.threads, th)
	}
	spl.schedules = []par.Schedule{own}
	spl.emulators = emulators.All(emulators.Options{})
	synPreds, err := predictAll(e, t, profile, &spl)
	if err != nil {
		return err
	}
	if err := synPreds.WriteTable(out); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 4. The truth: the real parallel version (package par, %s)\n", own)
	if err := demoTruth(e, name, k, t, pl, cores, quota); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== 5. What limits it\n")
	if err := writeAnalysis(out, t, pl.machine, pl.threads); err != nil {
		return err
	}
	html := filepath.Join(dir, name+"-report.html")
	if err := writeReport(html, t, profile, pl, extras{}, preds, synPreds); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nReport: %s (open it in a browser)\n", html)
	fmt.Fprintf(out, "Next: annotate your own program (see README.md), then prophet run -o my.ppt -- go run ./myprog\n")
	return nil
}

// demoProbe stores in t, recorded with a memory probe beside it, what
// the probe measured (raw), takes the slowdown its bandits caused back
// out of the recorded runs, as prophet run does (storeProbe), and
// returns one line about it.
func demoProbe(t *tree.Tree, raw memprobe.Raw) (string, error) {
	runs, added, err := storeProbe(t, raw, false)
	if err != nil {
		return "", fmt.Errorf("memory probe: %w", err)
	}
	n := len(t.Meta.Probe.Sections)
	noun := "sections"
	if n == 1 {
		noun = "section"
	}
	line := fmt.Sprintf("Memory probe (no hardware counters here): %d %s measured beside bandwidth bandits (their buffers made in %v first); it held the program for %v",
		n, noun, roundDur(time.Duration(raw.SetupNs)), roundDur(time.Duration(raw.HeldNs)))
	if runs > 0 && added >= time.Microsecond {
		line += fmt.Sprintf(", and %v its bandits added to %d runs was taken back out", roundDur(added), runs)
	}
	if n := t.Meta.Probe.Note; n != "" {
		line += "; " + n
	}
	return line + ".", nil
}

// demoTruth measures kernel k's real parallel version against the
// predictions for its recording t (validate.CompareKernel: rounds of
// real runs with a synthesizer replay after each, until their medians
// settle, and ff charging the cache-line costs measured beside them)
// and prints a line per thread count, or, where other programs
// used the cores meanwhile, says that the comparison was disturbed.
// cores is how many threads run at once, quota why fewer than the
// machine's CPUs ("" where none limits them).
func demoTruth(e *env, name string, k kernels.Kernel, t *tree.Tree, pl *plan, cores int, quota string) error {
	out := e.stdout
	var threads []int
	for th := 2; th <= cores; th *= 2 {
		threads = append(threads, th)
	}
	if len(threads) == 0 {
		if quota != "" {
			fmt.Fprintf(out, "%s lets this process run one thread at a time: there is no parallel run to compare with\n", quota)
		} else {
			fmt.Fprintln(out, "this machine has one core: there is no parallel run to compare with")
		}
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	quiet := hostload.WaitIdle(ctx, demoQuietWait)
	rep, err := validate.CompareKernel(ctx, name, k, t, validate.Config{
		Threads: threads, Emulators: emulators.Names(), Machine: pl.machine, LinesNow: true,
	})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	for _, th := range threads {
		var real *validate.Row
		var preds []string
		ffCPU, short := 0.0, false
		for i, r := range rep.Rows {
			if r.Threads != th {
				continue
			}
			real = &rep.Rows[i]
			if r.Emulator == "ff" {
				ffCPU = r.PredictedCPU
			}
			short = short || r.ShortLock
			how := "predicted"
			if r.Emulator == "syn" {
				how = "replayed"
			}
			preds = append(preds, fmt.Sprintf("%s %s %.2f (%+.0f%%)", r.Emulator, how, r.Predicted, 100*(r.Predicted-r.Real)/r.Real))
			if r.BetaSource != "" && r.Emulator == "ff" {
				preds = append(preds, fmt.Sprintf("[β_%d %.2f from the %s]", th, r.Beta, r.BetaSource))
			}
		}
		if real == nil {
			continue
		}
		fmt.Fprintf(out, "%d threads: real speedup %.2f (%.2f to %.2f in %d rounds)", th, real.Real, real.RealLow, real.RealHigh, real.Rounds)
		if rep.Disturbed {
			fmt.Fprintln(out)
			continue
		}
		fmt.Fprintf(out, "  %s\n", strings.Join(preds, "  "))
		if infl := real.CPUInflation; infl >= 1.1 {
			fmt.Fprint(out, cpuNote(infl, ffCPU, short))
		}
	}
	if rep.Disturbed {
		fmt.Fprintf(out, "Not compared: other programs kept %.1f of this machine's %d cores busy while the real runs were timed, so these speedups measure that contention, not %s; run the demo again on a quiet machine.\n", rep.OthersCores, rep.Cores, name)
		return nil
	}
	if !quiet {
		fmt.Fprintf(out, "(other programs used the cores for the %v the demo waited for them to be idle, but not while the runs were timed)\n", demoQuietWait)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	return nil
}

// cpuNote says what a real parallel run's CPU inflation infl (its CPU
// time over the serial run's, validate.Row.CPUInflation) is made of, set
// beside ff's own (validate.Row.PredictedCPU; 0 when not known): what ff
// does not charge is idle cores looking for work, tasks running slower
// side by side than recorded, or, where the example has a short lock
// (validate.Row.ShortLock), threads spinning at it longer than ff
// charges. It returns indented lines.
func cpuNote(infl, ffCPU float64, shortLock bool) string {
	text := fmt.Sprintf("the parallel run took %.2f× the serial run's CPU time", infl)
	if ffCPU > 0 {
		text += fmt.Sprintf(", ff's threads %.2f× (the locks, cache lines and overheads it charges, and the memory model's β); the rest is", ffCPU)
	} else {
		text += ": that is"
	}
	if shortLock {
		text += " threads spinning at its short lock or moving the lock's cache line, which ff follows only roughly for a lock this short," +
			" idle cores spinning for work,"
	} else {
		text += " idle cores spinning for work (Go's scheduler looks for work before it parks a thread, which slows nothing down)"
	}
	text += " or tasks running slower side by side than recorded: memory bandwidth, which the memory model's burden factors β cover" +
		" (from hardware counters, or the memory probe where there are none), or data that changes cores between sections," +
		" which no recording of the serial run shows (README.md, \"How far to trust a prediction\")"
	return wrapLines(text, "  ", demoWidth)
}

// demoWidth is the width the demo wraps its longer notes to.
const demoWidth = 108

// wrapLines breaks text into lines of at most width characters after
// indent (a longer word stays whole on its own line), each ending in a
// newline.
func wrapLines(text, indent string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		l := utf8.RuneCountInString(w)
		if n > 0 && n+1+l > width {
			b.WriteString("\n")
			n = 0
		}
		if n == 0 {
			b.WriteString(indent)
			n = utf8.RuneCountInString(indent)
		} else {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += l
	}
	if n > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
