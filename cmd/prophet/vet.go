package main

import (
	"errors"
	"fmt"

	"github.com/parallel-prophet/prophet/vet"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// errVetFindings is returned when prophet vet found and printed
// mistakes: exit status 1 with nothing more to say.
var errVetFindings = errors.New("annotation mistakes found")

func vetCommand() *command {
	c := &command{
		name:    "vet",
		args:    "[PACKAGES...]",
		summary: "check a program's annotations before a long recording run",
		long: `Checks the Go packages named (as go build names them; default ".") for
mistakes in their use of package annotate, without running anything:

  - Begin and End calls that do not pair on some path through a function:
    a SecEnd while a Task is open, a LockEnd whose id differs from its
    LockBegin's, an End with nothing open, paths that reach the same
    statement with different annotations open, a return between a Begin
    and its End without a deferred End;
  - annotation calls in a goroutine a go statement starts (the recorder
    records the recording goroutine only: annotations describe the
    parallelism, they must not run in parallel);
  - a main package that imports annotate but never calls annotate.Stop
    (its profile would never be written);
  - an annotate.Lock whose function writes an element a variable index
    picks (bins[b]++, m[key] = v): an indexed critical section, which
    annotate.LockIndexed marks (predictions then charge the move of the
    element's cache line inside the critical section).

Each finding is printed as file:line:col: message. Exit status: 1 when
there are findings, 0 when there are none, 2 when the packages cannot be
loaded. The same check runs under go vet with the prophet-vet tool:
go vet -vettool=$(go env GOPATH)/bin/prophet-vet ./...

Examples:
  prophet vet ./...
  prophet vet ./cmd/myprog`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		if err := parse(fs, args); err != nil {
			return err
		}
		patterns := fs.Args()
		if len(patterns) == 0 {
			patterns = []string{"."}
		}
		if err := e.checked(); err != nil {
			return err
		}
		cfg := &packages.Config{Mode: packages.LoadAllSyntax, Tests: true}
		pkgs, err := packages.Load(cfg, patterns...)
		if err != nil {
			return usagef("vet: loading %v: %v", patterns, err)
		}
		var loadErrs []string
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			for _, err := range p.Errors {
				loadErrs = append(loadErrs, err.Error())
			}
		})
		if len(loadErrs) > 0 {
			for _, m := range loadErrs {
				fmt.Fprintln(e.stderr, m)
			}
			return usagef("vet: %d errors loading %v (they must build first)", len(loadErrs), patterns)
		}
		g, err := checker.Analyze([]*analysis.Analyzer{vet.Analyzer}, pkgs, nil)
		if err != nil {
			return fmt.Errorf("vet: %w", err)
		}
		found := 0
		for act := range g.All() {
			if act.IsRoot {
				found += len(act.Diagnostics)
			}
		}
		if err := g.PrintText(e.stdout, -1); err != nil {
			return err
		}
		if found > 0 {
			return errVetFindings
		}
		return nil
	}
	return c
}
