package kernels

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

// Main is the whole main function of an example command: it parses the
// flags --parallel, --threads, --schedule and --scale, runs the kernel
// called name serially (annotated, so `prophet run` can profile it) or
// really in parallel, checks the result and prints the time taken.
// It exits with status 2 on bad usage and 1 on failure.
func Main(name string) {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	parallel := fs.Bool("parallel", false, "run the real parallel version (package par) instead of the annotated serial one")
	threads := fs.IntP("threads", "t", 0, "worker goroutines (and GOMAXPROCS) for --parallel (default: GOMAXPROCS, as the environment sets it)")
	sched := fs.String("schedule", "", "schedule for --parallel (default: the kernel's own)")
	scale := fs.Float64("scale", 1, "problem size relative to the default")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [--parallel [--threads T] [--schedule S]] [--scale X]\n\n", name)
		fs.PrintDefaults()
		fmt.Fprintf(os.Stderr, "\nProfile the serial version with: prophet run -- go run ./examples/%s\n", name)
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == pflag.ErrHelp {
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
	k, err := New(name, *scale)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
	s := k.Schedule()
	if *sched != "" {
		if s, err = par.ParseSchedule(*sched); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(2)
		}
	}
	switch {
	case *threads < 0:
		fmt.Fprintf(os.Stderr, "%s: --threads must be at least 1\n", name)
		os.Exit(2)
	case *threads == 0:
		*threads = runtime.GOMAXPROCS(0)
	default:
		runtime.GOMAXPROCS(*threads)
	}
	k.Reset()
	start := time.Now()
	if *parallel {
		k.Parallel(*threads, s)
	} else {
		k.Serial()
	}
	elapsed := time.Since(start)
	// Stop writes the profile when recording was switched on by
	// PROPHET_PROFILE (as `prophet run` does); otherwise it does nothing.
	if err := annotate.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	if err := k.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: wrong result: %v\n", name, err)
		os.Exit(1)
	}
	mode := "serial (annotated)"
	if *parallel {
		mode = fmt.Sprintf("parallel, %d threads, %s", *threads, s)
	}
	fmt.Printf("%s: %s: %v\n", name, mode, elapsed.Round(time.Microsecond))
}
