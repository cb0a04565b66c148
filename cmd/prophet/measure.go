package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/internal/progress"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/report"
)

func measureCommand() *command {
	c := &command{
		name:    "measure",
		args:    "[-o curve.json] [--threads 1-N] -- PROGRAM [ARGS...]",
		summary: "time your real parallel program at 1 to N cores: the curve to set beside the prediction",
		long: `Runs PROGRAM, your program once parallelized, with GOMAXPROCS set to each
thread count (default 1 to this machine's cores), in rounds that run every
count once, and takes each count's median wall time: at least --repeats
rounds, more (up to --max-repeats) while the runs around a median disagree
by more than 10%. Prints the speedup over its own 1-thread run with the
range of the rounds and saves the curve (-o), which prophet report --measured
draws over the predicted curves.

PROGRAM should size its parallelism from GOMAXPROCS (runtime.GOMAXPROCS(0)),
as Go programs usually do. Build it first: go run would time the compiler.
Each run is timed from start to exit, so a program that runs for a second
or more measures its parallel part best. Where other programs used the
cores while the runs were timed, a note says the curve is disturbed.

Examples:
  go build -o lu ./examples/lu && prophet measure -o lu-real.json -- ./lu --parallel
  prophet report lu.ppt -o lu.html --measured lu-real.json`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		out := fs.StringP("output", "o", "", "where to save the curve (JSON), for prophet report --measured")
		threads := fs.String("threads", fmt.Sprintf("1-%d", min(runtime.NumCPU(), 1024)), "thread counts (GOMAXPROCS) to run")
		repeats := fs.Int("repeats", 5, "rounds at least")
		maxRepeats := fs.Int("max-repeats", 15, "rounds at most, while a median has not settled")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			return usagef("measure: name the program to run after -- (see prophet measure --help)")
		}
		argv := fs.Args()
		if filepath.Base(argv[0]) == "go" && len(argv) > 1 && argv[1] == "run" {
			return usagef("measure: go run would time the compiler too: build the program first (go build -o prog ./path) and measure ./prog")
		}
		th, err := parseThreads(*threads)
		if err != nil {
			return usagef("--threads: %v", err)
		}
		slices.Sort(th)
		th = slices.Compact(th)
		if *repeats < 1 || *maxRepeats < *repeats {
			return usagef("measure: want 1 ≤ --repeats ≤ --max-repeats, not %d and %d", *repeats, *maxRepeats)
		}
		if err := e.checked(); err != nil {
			return err
		}
		if err := checkOutputs([]string{*out}, argv[0]); err != nil {
			return err
		}
		curve, err := measureCurve(e, argv, th, *repeats, *maxRepeats)
		if err != nil {
			return err
		}
		if err := report.WriteMeasuredTable(e.stdout, curve); err != nil {
			return err
		}
		if *out != "" {
			if err := writeFileAtomic(*out, func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(curve)
			}); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "curve written to %s (prophet report --measured %s draws it)\n", *out, *out)
		}
		return nil
	}
	return c
}

// measureCurve times argv at each thread count in rounds until every
// median has settled (at least repeats rounds, at most maxRepeats).
func measureCurve(e *env, argv []string, threads []int, repeats, maxRepeats int) (*report.Measured, error) {
	runs := make([][]float64, len(threads))
	meter := hostload.Start()
	settled := func() bool {
		for _, r := range runs {
			if !robust.Settled(r) {
				return false
			}
		}
		return true
	}
	bar := progress.New(e.stderr, "measure", repeats*len(threads))
	for round := 0; round < repeats || (round < maxRepeats && !settled()); round++ {
		if round >= repeats {
			bar.SetTotal((round + 1) * len(threads))
		}
		for i, t := range threads {
			d, err := timeRun(argv, t)
			if err != nil {
				bar.Done()
				return nil, err
			}
			runs[i] = append(runs[i], d)
			bar.Add(1)
		}
	}
	bar.Done()
	curve := &report.Measured{Program: strings.Join(argv, " ")}
	if o, ok := meter.Stop().OthersCores(); ok {
		curve.OthersCores, curve.Disturbed = o, o >= hostload.DisturbedCores
	}
	base := robust.Median(runs[0])
	for i, t := range threads {
		p := report.MeasuredPoint{Threads: t, MedianNs: robust.Median(runs[i]), Spread: robust.Spread(runs[i]), Rounds: len(runs[i])}
		p.Speedup = base / p.MedianNs
		rs := robust.Ratios(runs[0], runs[i])
		p.Low, p.High = slices.Min(rs), slices.Max(rs)
		curve.Points = append(curve.Points, p)
	}
	return curve, nil
}

// timeRun runs argv once with GOMAXPROCS=threads and returns its wall
// time in nanoseconds; a failed run is an error quoting its last output.
func timeRun(argv []string, threads int) (float64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(threads))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	d := float64(time.Since(start))
	if err != nil {
		var ee *exec.ExitError
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("%s with GOMAXPROCS=%d exited with status %d: %s", strings.Join(argv, " "), threads, ee.ExitCode(), msg)
		}
		return 0, fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	return d, nil
}
