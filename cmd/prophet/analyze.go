package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
)

func analyzeCommand() *command {
	c := &command{
		name:    "analyze",
		args:    "FILE [--format table|json]",
		summary: "work, span, parallelism, lock bound and the regions that limit scaling",
		long: `Computes from the program tree in FILE the work T1, the span T∞ (the
critical path), the parallelism T1/T∞, the bound each lock puts on speedup,
a burdened span that charges the costs of forking, joining and dispatching,
and speedup bounds per thread count in the style of Cilkview (the lower
bounds also charge, where the machine profile has a wake step, Go's waking
a team's idle cores one after another at every team start). Then lists
every section and task name (region) with its work, span and work on the
critical path, the region that limits scaling first, with the file:line
where each was annotated when the profile recorded it.

With --pprof OUT it also writes the regions' work and critical path as a
pprof profile (profile.proto): one function per region, named with its
file:line, one sample per nesting of regions. go tool pprof then shows the
span as a flame graph (the default sample, critical_path; -sample_index=work
for the work):
  go tool pprof -http=: lu.pprof
  go tool pprof -top lu.pprof

Examples:
  prophet analyze lu.ppt
  prophet analyze lu.ppt --pprof lu.pprof --threads 1,2,4,8`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		format := fs.String("format", "table", "output format: table or json")
		threads := fs.String("threads", "1,2,4,8,16,32,64", "thread counts for the speedup bounds")
		machinePath := fs.String("machine", "", "machine profile whose overheads the burdened span charges "+machineFlagDefault)
		most := fs.Int("regions", 15, "regions to list (0: all)")
		pprofOut := fs.String("pprof", "", "also write the regions' work and critical path as a pprof profile (go tool pprof)")
		t, th, m, err := profileCommand(e, fs, args, format, []string{"table", "json"}, threads, machinePath, true, pprofOut)
		if err != nil {
			return err
		}
		if *pprofOut != "" {
			p, err := analyze.Pprof(t)
			if err != nil {
				return fmt.Errorf("analyzing %s: %w", fs.Arg(0), err)
			}
			if err := writeFileAtomic(*pprofOut, p.Write); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "pprof profile written to %s (go tool pprof -http=: %s)\n", *pprofOut, *pprofOut)
		}
		a, err := analyze.Analyze(t, analyze.Options{Overheads: m.Overheads, Threads: th})
		if err != nil {
			return fmt.Errorf("analyzing %s: %w", fs.Arg(0), err)
		}
		if *format == "json" {
			return report.WriteAnalysisJSON(e.stdout, a)
		}
		return report.WriteAnalysisTable(e.stdout, a, *most)
	}
	return c
}

// writeAnalysis prints the analysis summary that demo shows.
func writeAnalysis(w io.Writer, t *tree.Tree, m machine.Profile, threads []int) error {
	a, err := analyze.Analyze(t, analyze.Options{Overheads: m.Overheads, Threads: threads})
	if err != nil {
		return err
	}
	return report.WriteAnalysisTable(w, a, 5)
}

func whatifCommand() *command {
	c := &command{
		name:    "whatif",
		args:    "FILE (--region NAME (--faster K | --parallelize K) | --target-parallelism P | --sweep)",
		summary: "what if a region were faster or parallelized: before and after",
		long: `Changes the program tree in FILE as asked and shows the analysis and the
predicted speedups before and after:
  --region NAME --faster K        the region's computation K times faster
  --region NAME --parallelize K   the region's serial computation split K ways
  --target-parallelism P          pick, greedily, the regions with the most work
                                  on the critical path to parallelize until the
                                  parallelism reaches P, or say it can't be done
  --sweep                         what to optimize first: for every region, the
                                  predicted speedup at the largest --threads
                                  (first --schedule) if it were 10, 25 or 50%
                                  faster or split as many ways as threads,
                                  ranked by the best gain
Region names are those prophet analyze lists (sec:NAME, task:NAME, serial);
a bare section or task name works when it is unambiguous.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		region := fs.String("region", "", "the region to change (see prophet analyze)")
		faster := fs.Float64("faster", 0, "make the region's computation K times faster (K > 1)")
		parallelize := fs.Int("parallelize", 0, "split the region's serial computation K ways (K ≥ 2)")
		target := fs.Float64("target-parallelism", 0, "parallelize regions until the parallelism reaches P")
		factor := fs.Int("factor", 0, "with --target-parallelism: how many ways to split each region (default max(2, ⌈P⌉))")
		sweepAll := fs.Bool("sweep", false, "rank every region by the predicted gain if it were faster or split")
		var pf predictFlags
		pf.register(c, fs)
		if err := parse(fs, args); err != nil {
			return err
		}
		path, err := oneFile(fs, "profile")
		if err != nil {
			return err
		}
		modes := 0
		for _, set := range []bool{*faster != 0, *parallelize != 0, *target != 0, *sweepAll} {
			if set {
				modes++
			}
		}
		switch {
		case modes != 1:
			return usagef("whatif: give exactly one of --faster, --parallelize, --target-parallelism or --sweep")
		case *target == 0 && !*sweepAll && *region == "":
			return usagef("whatif: --faster and --parallelize need --region NAME")
		case *faster != 0 && *faster <= 1:
			return usagef("--faster: K must be greater than 1, got %g", *faster)
		case *parallelize != 0 && *parallelize < 2:
			return usagef("--parallelize: K must be at least 2, got %d", *parallelize)
		case *target < 0 || (*target > 0 && *target <= 1):
			return usagef("--target-parallelism: P must be greater than 1, got %g", *target)
		}
		pl, t, err := pf.load(e, path)
		if err != nil {
			return err
		}
		if *sweepAll {
			a, err := analyze.Analyze(t, analyze.Options{Overheads: pl.machine.Overheads, Threads: pl.threads})
			if err != nil {
				return err
			}
			sw, err := sweep(t, a, pl)
			if err != nil {
				return err
			}
			return report.WriteSweepTable(e.stdout, sw)
		}
		if *target > 0 {
			plan, err := analyze.TargetParallelism(t, *target, *factor)
			if err == nil || errors.Is(err, analyze.ErrUnreachable) {
				if werr := report.WritePlan(e.stdout, plan); werr != nil {
					return werr
				}
			}
			return err
		}
		ch := analyze.Change{Region: *region, Faster: *faster, Parallelize: *parallelize}
		nt, err := analyze.WhatIf(t, ch)
		if err != nil {
			return err
		}
		aopt := analyze.Options{Overheads: pl.machine.Overheads, Threads: pl.threads}
		before, err := analyze.Analyze(t, aopt)
		if err != nil {
			return err
		}
		after, err := analyze.Analyze(nt, aopt)
		if err != nil {
			return err
		}
		for _, tr := range []*tree.Tree{t, nt} {
			if err := pl.checkBudget(tr, pl.emulators, 2*pl.rowsEach()); err != nil {
				return err
			}
		}
		// Before and after, each with half of the budget.
		sb, err := emulate.RunSweep(t, pl.emulators, pl.threads, pl.schedules, pl.options(pl.budget/2, pl.sweepSize()), nil)
		if err != nil {
			return err
		}
		sa, err := emulate.RunSweep(nt, pl.emulators, pl.threads, pl.schedules, pl.options(pl.budget/2, pl.sweepSize()), nil)
		if err != nil {
			return err
		}
		notes := sb.Notes
		for _, n := range sa.Notes {
			if !slices.Contains(notes, n) {
				notes = append(notes, "after the change: "+n)
			}
		}
		return report.WriteWhatIfTable(e.stdout, report.WhatIf{
			Change: ch.String(), Before: before, After: after,
			BeforeResults: sb.Results, AfterResults: sa.Results, Notes: notes,
		})
	}
	return c
}
