package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/tree"
)

func runCommand() *command {
	c := &command{
		name:    "run",
		args:    "[-o FILE] [--tolerance X] [--repeat N] [--memory-probe auto|on|off] -- PROGRAM [ARGS...]",
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

A recording measures wall time, so a timer interrupt or a garbage
collection that strikes a task while it runs is recorded as that task's
work; a parallel loop meets such hiccups on whichever thread runs when they
come, and a static schedule that gets the struck tasks in one block is
predicted slower than it runs. --repeat N records PROGRAM N times (the
later runs' output not shown) and pools the recordings (the
PROPHET_REPEAT environment variable): every interval at the length the
recordings agree on (the shorter of two; from three on the second
shortest, since intervals of tens of nanoseconds also vary both ways and
the shortest of several is below their usual length, unless it lies
microseconds above the shortest), which leaves such hiccups out and lets
runs of identical tasks compress further. The program must do the same
work each time; where a recording differs from the first, pooling stops
there. The pool lives in the recorded program, 48 bytes an annotation
event, and keeps the first 4,194,304 events (192 MiB, a loop of about two
million tasks): past them, the intervals are the last recording's, and
prophet run says so. After a single recording, prophet run suggests --repeat where tasks
that look struck (three times their section's median task, and 5 µs
more) hold 0.5% of the work or more.

The memory probe (--memory-probe) runs beside the recording: bandwidth
bandits stream on the other cores beside some runs of each top-level
section (and blocks of the tasks of its first run), and the profile keeps
how much each section slowed down and how much bandwidth it took: the
memory model's input on machines without hardware counters. The time the
probe holds the program is left out of the recording, and the slowdown
its bandits caused is taken back out of the runs they streamed beside.
auto (the default) probes where this machine gives the recording no
counters and has two cores or more. Where it cannot probe (one core, a
CPU quota, the bandits starved), the profile says why and predictions
leave memory contention out.

Examples:
  prophet run -o lu.ppt -- go run ./examples/lu
  prophet run --memory-probe on -o stream.ppt -- go run ./examples/stream
  prophet run -- ./mybinary -input data.txt`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		out := fs.StringP("output", "o", "prophet.ppt", "where to write the profile")
		tol := fs.Float64("tolerance", tree.DefaultTolerance, "compression tolerance of the recording (relative; negative: exact lengths)")
		probe := fs.String("memory-probe", "auto", "measure memory contention with bandwidth bandits beside the recording: auto (where there are no counters), on or off")
		repeat := fs.Int("repeat", 1, "record the program this many times (1 to 20) and pool the recordings: every interval at the length they agree on")
		if err := parse(fs, args); err != nil {
			return err
		}
		if *repeat < 1 || *repeat > maxRepeat {
			return usagef("--repeat %d: want 1 to %d recordings", *repeat, maxRepeat)
		}
		mode, err := memmodel.ParseMode(*probe)
		if err != nil {
			return usagef("--memory-probe: %v", err)
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
		if err := checkOutputs([]string{*out}, fs.Arg(0)); err != nil {
			return fmt.Errorf("run: %w", err)
		}
		return runProgram(e, *out, fs.Args(), mode, *repeat, env...)
	}
	return c
}

// exitStatus is an error that ends prophet with a status of its own:
// prophet run passes on its program's.
type exitStatus struct {
	code int
	msg  string
}

// Error implements error.
func (e *exitStatus) Error() string { return e.msg }

// runProgram runs argv with recording on, and env added to its
// environment, and moves the profile to out when the program wrote a
// valid one, whatever its exit status. prophet exits with the program's
// status (128+n for a signal n); SIGINT and SIGTERM sent to prophet go
// on to the program, and prophet removes its temporary files after it.
func runProgram(e *env, out string, argv []string, probe memmodel.Mode, repeat int, env ...string) error {
	dir := filepath.Dir(out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("run: cannot write %s: directory %s does not exist", out, dir)
	}
	tmpName, errName, cleanup, err := childFiles(dir, "run", ".ppt")
	if err != nil {
		return fmt.Errorf("run: cannot write %s: %w", out, err)
	}
	defer cleanup()
	recEnv := env
	var pool string
	if repeat > 1 {
		var poolCleanup func()
		if pool, _, poolCleanup, err = childFiles(dir, "pool", ".rep"); err != nil {
			return fmt.Errorf("run: cannot write %s: %w", out, err)
		}
		defer poolCleanup()
		recEnv = append(slices.Clip(env), annotate.EnvRepeat+"="+pool)
	}
	poolEnv := recEnv // the later recordings: no probe
	probing := probeBeside(probe)
	coresNote := ""
	var rawPath string
	if probing {
		if coresNote = memprobe.NoCoresNote(); coresNote != "" {
			probing = false
		} else {
			var rawCleanup func()
			if rawPath, _, rawCleanup, err = childFiles(dir, "probe", ".json"); err != nil {
				return fmt.Errorf("run: memory probe: %w", err)
			}
			defer rawCleanup()
			if rawPath, err = filepath.Abs(rawPath); err != nil {
				return fmt.Errorf("run: %w", err)
			}
			recEnv = append(slices.Clip(recEnv), annotate.EnvProbe+"="+rawPath)
			fmt.Fprintln(e.stderr, "memory probe: bandwidth bandits stream on the other cores beside some runs of each section (the slowdown they cause is taken back out of the profile)")
		}
	}
	if repeat > 1 {
		fmt.Fprintf(e.stderr, "prophet: recording 1 of %d\n", repeat)
	}

	abs, err := filepath.Abs(tmpName)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	prog := strings.Join(argv, " ")
	began := time.Now()
	runErr, sig, err := recordChild(argv, recEnv, abs, errName, os.Stdin, e.stdout, e.stderr)
	if err != nil {
		return fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	plainWall := time.Since(began)
	status, how := childStatus(runErr)
	if sig != nil {
		fmt.Fprintf(e.stderr, "prophet: %v received: passed on to %s, which %s\n", sig, argv[0], how)
	}

	if msg := childError(errName); msg != "" {
		return withStatus(status, fmt.Errorf("%s: %s", filepath.Base(argv[0]), msg))
	}
	if runErr != nil && status < 0 {
		return fmt.Errorf("cannot run %s: %w", argv[0], runErr)
	}
	t, err := tree.ReadFile(abs)
	if errors.Is(err, os.ErrNotExist) {
		if status != 0 {
			return withStatus(status, fmt.Errorf("%s %s; no profile written", prog, how))
		}
		return fmt.Errorf("%s finished without writing a profile: does it call annotate.Stop() before exiting (e.g. defer annotate.Stop() in main)?", prog)
	}
	if err != nil {
		return withStatus(status, fmt.Errorf("the profile %s wrote is unreadable: %w", argv[0], err))
	}
	pooled := 1
	if status == 0 && sig == nil && repeat > 1 {
		if t, pooled, err = poolRecordings(e, argv, poolEnv, pool, abs, repeat, t); err != nil {
			return err
		}
	}
	switch {
	case status != 0 || sig != nil:
	case coresNote != "" && len(memmodel.TopSections(t)) > 0:
		if err := noProbeCores(e, t, abs, coresNote); err != nil {
			return err
		}
	case probing:
		if err := applyProbe(e, t, rawPath, abs, pooled > 1, plainWall); err != nil {
			return err
		}
	}
	if err := os.Rename(abs, out); err != nil {
		return fmt.Errorf("run: writing %s: %w", out, err)
	}
	tot := t.Totals()
	fmt.Fprintf(e.stderr, "profile written to %s: %d sections, %d tasks, %d locked regions, serial time %s\n",
		out, tot.Sections, tot.Tasks, tot.Locks, tree.FormatNs(tot.SerialNs))
	if repeat == 1 {
		if hint := spikeHint(t); hint != "" {
			fmt.Fprintln(e.stderr, hint)
		}
	}
	if status != 0 {
		return &exitStatus{code: status, msg: fmt.Sprintf("%s %s after writing its profile, which is kept (%s)", prog, how, out)}
	}
	fmt.Fprintf(e.stderr, "next: prophet predict %s\n", out)
	return nil
}

// recordChild runs argv once with recording on: the profile to abs, an
// annotation error to errName, env added to its environment, its input
// and output from and to stdin, stdout and stderr (nil: none), and the
// SIGINT and SIGTERM prophet receives passed on to it. It returns how it
// ended (Wait's error) and the signal passed on (nil: none); err is set
// when it could not be started.
func recordChild(argv, env []string, abs, errName string, stdin io.Reader, stdout, stderr io.Writer) (runErr error, sig os.Signal, err error) {
	cmd, got, err := startChild(argv, append([]string{annotate.EnvVar + "=" + abs}, env...), errName, stdin, stdout, stderr)
	if err != nil {
		return nil, nil, err
	}
	runErr = cmd.Wait()
	return runErr, got(), nil
}

// startChild starts argv as an annotated child of prophet: env added to
// its environment, with where to write an annotation error (errName) and
// the program's command line, its input and output from and to stdin,
// stdout and stderr (nil: none), and the SIGINT and SIGTERM prophet
// receives passed on to it. Once the child has ended, the function
// returned stops passing them on and returns the first one passed (nil:
// none).
func startChild(argv, env []string, errName string, stdin io.Reader, stdout, stderr io.Writer) (*exec.Cmd, func() os.Signal, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(),
		annotate.EnvErrors+"="+errName,
		annotate.EnvProgram+"="+strings.Join(argv, " "))
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd, forwardSignals(cmd.Process), nil
}

// childError returns the error an annotated child wrote to the file at
// path (annotate.EnvErrors), trimmed; "" when it wrote none.
func childError(path string) string {
	msg, _ := os.ReadFile(path)
	return strings.TrimSpace(string(msg))
}

// childFiles returns, in dir, the path of a file an annotated child
// program is to create (absent now: its absence afterwards means the
// child wrote nothing) and, in the temporary directory, an empty file for
// the error it reports (annotate.EnvErrors); cleanup removes both.
func childFiles(dir, what, ext string) (out, errFile string, cleanup func(), err error) {
	f, err := os.CreateTemp(dir, ".prophet-"+what+"-*"+ext)
	if err != nil {
		return "", "", nil, err
	}
	f.Close()
	os.Remove(f.Name())
	ef, err := os.CreateTemp("", "prophet-"+what+"-*.err")
	if err != nil {
		return "", "", nil, err
	}
	ef.Close()
	return f.Name(), ef.Name(), func() { os.Remove(f.Name()); os.Remove(ef.Name()) }, nil
}

// forwardSignals passes SIGINT and SIGTERM that prophet receives on to p
// until the returned function is called; that function returns the
// first signal passed on, or nil.
func forwardSignals(p *os.Process) func() os.Signal {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	first := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range sigs {
			select {
			case first <- s:
			default:
			}
			p.Signal(s)
		}
	}()
	return func() os.Signal {
		signal.Stop(sigs)
		close(sigs)
		<-done
		select {
		case s := <-first:
			return s
		default:
			return nil
		}
	}
}

// childStatus turns a child's Wait error into the status prophet exits
// with (128+n for a signal n; -1 when it did not run or could not be
// waited for) and a phrase saying how it ended.
func childStatus(err error) (int, string) {
	if err == nil {
		return 0, "exited normally"
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return -1, "could not be run"
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return ee.ExitCode(), fmt.Sprintf("exited with status %d", ee.ExitCode())
}

// withStatus returns err to end prophet with status when the program
// failed (status > 0), else err itself (exit 1).
func withStatus(status int, err error) error {
	if status > 0 {
		return &exitStatus{code: status, msg: err.Error()}
	}
	return err
}
