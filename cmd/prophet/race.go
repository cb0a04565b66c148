package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/racereport"
)

// errRaces is returned when races were found and printed: exit status 1
// with nothing more to say.
var errRaces = errors.New("apparent races found")

func raceCommand() *command {
	c := &command{
		name:    "race",
		args:    "[--format text|json] -- PROGRAM [ARGS...]",
		summary: "is it safe? apparent data races between the tasks marked parallel",
		long: `Runs PROGRAM, an annotated serial program built with Go's race detector
(go build -race, or PROGRAM given as 'go run -race ./path'), in annotate's
race mode: every task written with annotate.Task or annotate.Loop runs on a
goroutine of its own, one task after another, so results and timing stay
those of the serial program, while the race detector sees the tasks of a
section as concurrent, as the parallel version would run them. A section's
start is ordered before its tasks and its tasks before the code after it
(unless nowait), and every annotated lock is a real sync.Mutex. Each
distinct race is printed once: the two accesses with file:line and kind
(write/write, read/write), the sections and tasks that made them, how many
reports showed them, and whether annotate.Lock covered either access.

Exit status: 1 when races were found, 0 when none, 2 on bad usage
(including a PROGRAM built without -race).

Limits:
  - the races are apparent races for this input only: a branch not taken,
    or data another input would share, is not seen;
  - a lock imposes the serial run's order on its critical sections, and an
    access that follows one task's critical section and precedes another's
    is then ordered as the serial run had it: such a race can be missed;
  - tasks written with TaskBegin/TaskEnd run inline and are not checked
    (their sections are named); write them with annotate.Task or
    annotate.Loop;
  - the race detector makes a program 5 to 15 times slower, and race mode
    adds a goroutine per task.

Examples:
  prophet race -- go run -race ./examples/lu
  go build -race -o myprog-race ./cmd/myprog && prophet race --format json -- ./myprog-race -input small.txt`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		format := fs.String("format", "text", "output format: text or json")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			return usagef("race: name the program to run after -- (see prophet race --help)")
		}
		if err := checkFormat(*format, "text", "json"); err != nil {
			return err
		}
		if err := e.checked(); err != nil {
			return err
		}
		res, err := raceRun(e, fs.Args())
		if err != nil {
			return err
		}
		if *format == "json" {
			err = res.WriteJSON(e.stdout)
		} else {
			err = res.WriteText(e.stdout, relPath)
		}
		if err != nil {
			return err
		}
		if len(res.Races) > 0 {
			return errRaces
		}
		return nil
	}
	return c
}

// raceRun runs argv in race mode and reads what it left.
func raceRun(e *env, argv []string) (*racereport.Result, error) {
	dir, err := os.MkdirTemp("", "prophet-race-*")
	if err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	defer os.RemoveAll(dir)
	logPath := filepath.Join(dir, "tasks")
	reportPath := filepath.Join(dir, "report")

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stderr, e.stderr
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, annotate.EnvVar+"=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	// The reports tell prophet of the races; exitcode=0 leaves the
	// program's own exit status, so that go run does not print "exit
	// status 66" under prophet's report when races were found.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " log_path=" + reportPath + " halt_on_error=0 exitcode=0")
	cmd.Env = append(env, annotate.EnvRace+"="+logPath, "GORACE="+gorace)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("race: cannot run %s: %w", argv[0], err)
	}
	// Ctrl-C and kill reach the program, which prophet outlives to
	// clean up.
	got := forwardSignals(cmd.Process)
	runErr := cmd.Wait()
	if sig := got(); sig != nil {
		_, how := childStatus(runErr)
		fmt.Fprintf(e.stderr, "prophet: %v received: passed on to %s, which %s\n", sig, argv[0], how)
	}

	prog := strings.Join(argv, " ")
	log, err := readWith(logPath, racereport.ReadLog)
	if errors.Is(err, os.ErrNotExist) {
		if runErr != nil {
			return nil, fmt.Errorf("%s failed (%v) before annotate started race mode", prog, runErr)
		}
		return nil, fmt.Errorf("%s did not start annotate's race mode: does it import %s?", prog, racereport.AnnotatePkg)
	}
	if err != nil {
		return nil, fmt.Errorf("race: %w", err)
	}
	if log.NoRace && !log.Started {
		return nil, usagef("race: %s was built without the race detector: build it with go build -race (or give it as go run -race ./path)", prog)
	}
	var reports []racereport.Report
	files, _ := filepath.Glob(reportPath + ".*")
	for _, name := range files {
		r, err := readWith(name, racereport.Parse)
		if err != nil {
			return nil, fmt.Errorf("race: %w", err)
		}
		reports = append(reports, r...)
	}
	res := racereport.Group(reports, log)
	var ee *exec.ExitError
	if runErr != nil && len(res.Races) == 0 {
		if errors.As(runErr, &ee) {
			return nil, fmt.Errorf("%s exited with status %d; no race was found in what it ran", prog, ee.ExitCode())
		}
		return nil, fmt.Errorf("%s: %w", prog, runErr)
	}
	return res, nil
}

// relPath returns path relative to the working directory when it lies
// below it.
func relPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
