// Command prophet predicts the speedup a serial Go program would get if the
// loops and tasks its annotations mark were parallelized.
//
//	prophet run [-o FILE] -- PROGRAM [ARGS...]   profile an annotated program
//	prophet tree FILE                            show a profile's program tree
//	prophet predict FILE                         predict speedups
//	prophet analyze FILE                         work, span, parallelism, regions
//	prophet whatif FILE --region NAME --faster K what if a region were faster
//	prophet report FILE -o report.html           tables and plots in one page
//	prophet calibrate [-o FILE]                  measure this machine
//	prophet validate                             predicted against real speedups
//	prophet demo                                 all of it on a bundled example
//	prophet race -- PROGRAM [ARGS...]            apparent data races between tasks
//	prophet measure -- PROGRAM [ARGS...]         your parallel program's real curve
//
// Run `prophet help COMMAND` or `prophet COMMAND --help` for a command's
// flags. Exit status is 0 on success, 2 on bad usage and 1 on any other
// error, with one sentence on standard error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/spf13/pflag"
)

// baseVersion is the version of this source tree.
const baseVersion = "0.1.0"

// version is prophet's version as built, shown by --version and written
// into machine files: the module's version for a build of a released
// module (go install ...@v0.2.0), else baseVersion marked as a
// development build with its VCS revision where the build recorded one.
var version = buildVersion(debug.ReadBuildInfo())

func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return baseVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return baseVersion + "-devel"
	}
	return baseVersion + "-devel+" + rev[:min(len(rev), 12)] + dirty
}

// command is one subcommand.
type command struct {
	name    string
	args    string // the usage line after the command name
	summary string // one line for the command list
	long    string // what it does, shown by --help
	// run parses args with the command's flag set and does the work.
	run func(env *env, args []string) error
}

// env is what a command may touch: its output streams, and two hooks
// for tests.
type env struct {
	stdout, stderr io.Writer
	// measure, when not nil, replaces measureMachine: what a command
	// that predicts runs when no machine profile is saved.
	measure func(ctx context.Context, progress io.Writer) (machine.Profile, error)
	// checkOnly makes a command stop with errChecked once its arguments
	// have parsed and passed their checks, before it reads a file or
	// measures anything.
	checkOnly bool
}

// errChecked is returned in place of the work when env.checkOnly is set
// and the arguments passed.
var errChecked = errors.New("arguments checked")

// checked returns errChecked when e only checks arguments, else nil:
// a command calls it where its arguments have passed every check and
// its work begins.
func (e *env) checked() error {
	if e.checkOnly {
		return errChecked
	}
	return nil
}

// usageError is bad usage: exit status 2.
type usageError struct{ msg string }

// Error implements error.
func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelp means --help was asked for and printed: exit 0.
var errHelp = errors.New("help shown")

func commands() []*command {
	return []*command{
		runCommand(), treeCommand(), predictCommand(), analyzeCommand(),
		whatifCommand(), reportCommand(), calibrateCommand(),
		validateCommand(), demoCommand(), raceCommand(), vetCommand(), measureCommand(),
	}
}

func find(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr}))
}

// run runs prophet with args and returns the exit status.
func run(args []string, e *env) int {
	if len(args) == 0 {
		topUsage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c := find(args[1]); c != nil {
				return exitCode(e, c.run(e, []string{"--help"}))
			}
			fmt.Fprintf(e.stderr, "prophet: unknown command %q\n", args[1])
			return 2
		}
		topUsage(e.stdout)
		return 0
	case "-v", "--version", "version":
		fmt.Fprintf(e.stdout, "prophet %s\n", version)
		return 0
	}
	c := find(name)
	if c == nil {
		fmt.Fprintf(e.stderr, "prophet: unknown command %q (run prophet help for the list)\n", name)
		return 2
	}
	return exitCode(e, c.run(e, args[1:]))
}

func exitCode(e *env, err error) int {
	if err == nil || errors.Is(err, errHelp) || errors.Is(err, errChecked) {
		return 0
	}
	if errors.Is(err, errRaces) || errors.Is(err, errVetFindings) {
		return 1 // the races, or the findings, are the output
	}
	var st *exitStatus
	if errors.As(err, &st) {
		fmt.Fprintf(e.stderr, "prophet: %v\n", err)
		return st.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "prophet: %v\n", err)
		return 2
	}
	fmt.Fprintf(e.stderr, "prophet: %v\n", err)
	return 1
}

func topUsage(w io.Writer) {
	fmt.Fprintf(w, "prophet %s predicts the speedup of a serial Go program before you parallelize it.\n\n", version)
	fmt.Fprintln(w, "Usage: prophet COMMAND [ARGS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'prophet help COMMAND' for a command's flags. Start with 'prophet demo'.")
}

// newFlags returns a flag set for c whose usage prints c's help.
func newFlags(c *command, e *env) *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := e.stdout
		fmt.Fprintf(w, "Usage: prophet %s %s\n\n", c.name, c.args)
		fmt.Fprintln(w, strings.TrimSpace(c.long))
		if fs.HasFlags() {
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Flags:")
			fmt.Fprint(w, fs.FlagUsages())
		}
	}
	return fs
}

// parse parses args into fs, turning pflag's errors into usage errors
// and --help into errHelp.
func parse(fs *pflag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard) // we print our own one-line errors
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp // pflag has printed the usage
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	return nil
}

// oneFile returns the single positional argument naming a profile.
func oneFile(fs *pflag.FlagSet, what string) (string, error) {
	switch fs.NArg() {
	case 1:
		return fs.Arg(0), nil
	case 0:
		return "", usagef("%s: name the %s (see prophet %s --help)", fs.Name(), what, fs.Name())
	default:
		return "", usagef("%s: one %s only, got %d arguments", fs.Name(), what, fs.NArg())
	}
}

// checkFormat returns a usage error unless format is one of allowed.
func checkFormat(format string, allowed ...string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	return usagef("--format: want %s, not %q", strings.Join(allowed, ", "), format)
}

// readWith opens path and reads it with read.
func readWith[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}
