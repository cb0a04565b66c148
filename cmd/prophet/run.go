package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/tree"
)

func runCommand() *command {
	c := &command{
		name:    "run",
		args:    "[-o FILE] [--tolerance X] -- PROGRAM [ARGS...]",
		summary: "profile an annotated program and write its program tree",
		long: `Runs PROGRAM with recording switched on (the PROPHET_PROFILE environment
variable) and writes the program tree it records to FILE. PROGRAM must be
annotated with package annotate and call annotate.Stop() before it exits
(usually 'defer annotate.Stop()' in main). PROGRAM may be 'go run ./path'.

Consecutive tasks whose lengths differ by less than the compression
tolerance (default 5%) are stored as one run at their mean length. Where
tasks contend for a lock, the phase between threads decides who waits, and
a finer tolerance (--tolerance 0.005; negative: exact lengths) predicts
contention better, for a larger profile (the PROPHET_TOLERANCE environment
variable).

Examples:
  prophet run -o lu.ppt -- go run ./examples/lu
  prophet run -- ./mybinary -input data.txt`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		out := fs.StringP("output", "o", "prophet.ppt", "where to write the profile")
		tol := fs.Float64("tolerance", tree.DefaultTolerance, "compression tolerance of the recording (relative; negative: exact lengths)")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			return usagef("run: name the program to run after -- (see prophet run --help)")
		}
		var env []string
		if fs.Changed("tolerance") {
			if err := tree.CheckTolerance(*tol); err != nil {
				return usagef("--%v", err)
			}
			env = append(env, annotate.EnvTolerance+"="+strconv.FormatFloat(*tol, 'g', -1, 64))
		}
		if err := e.checked(); err != nil {
			return err
		}
		return runProgram(e, *out, fs.Args(), env...)
	}
	return c
}

// runProgram runs argv with recording on, and env added to its
// environment, and moves the profile to out only when the program wrote a
// valid one.
func runProgram(e *env, out string, argv []string, env ...string) error {
	dir := filepath.Dir(out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("run: cannot write %s: directory %s does not exist", out, dir)
	}
	tmp, err := os.CreateTemp(dir, ".prophet-run-*.ppt")
	if err != nil {
		return fmt.Errorf("run: cannot write %s: %w", out, err)
	}
	tmp.Close()
	os.Remove(tmp.Name()) // the program creates it; its absence means no profile
	defer os.Remove(tmp.Name())
	errFile, err := os.CreateTemp("", "prophet-run-*.err")
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	errFile.Close()
	defer os.Remove(errFile.Name())

	abs, err := filepath.Abs(tmp.Name())
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, e.stderr
	cmd.Env = append(os.Environ(),
		annotate.EnvVar+"="+abs,
		annotate.EnvErrors+"="+errFile.Name())
	cmd.Env = append(cmd.Env, env...)
	runErr := cmd.Run()

	if msg, _ := os.ReadFile(errFile.Name()); len(strings.TrimSpace(string(msg))) > 0 {
		return fmt.Errorf("%s: %s", filepath.Base(argv[0]), strings.TrimSpace(string(msg)))
	}
	if runErr != nil {
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return fmt.Errorf("%s exited with status %d; no profile written", strings.Join(argv, " "), ee.ExitCode())
		}
		return fmt.Errorf("cannot run %s: %w", argv[0], runErr)
	}
	t, err := tree.ReadFile(abs)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s finished without writing a profile: does it call annotate.Stop() before exiting (e.g. defer annotate.Stop() in main)?", strings.Join(argv, " "))
	}
	if err != nil {
		return fmt.Errorf("the profile %s wrote is unreadable: %w", argv[0], err)
	}
	if err := os.Rename(abs, out); err != nil {
		return fmt.Errorf("run: writing %s: %w", out, err)
	}
	tot := t.Totals()
	fmt.Fprintf(e.stderr, "profile written to %s: %d sections, %d tasks, %d locked regions, serial time %s\n",
		out, tot.Sections, tot.Tasks, tot.Locks, tree.FormatNs(tot.SerialNs))
	fmt.Fprintf(e.stderr, "next: prophet predict %s\n", out)
	return nil
}
