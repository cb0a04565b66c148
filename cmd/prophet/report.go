package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/racereport"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
)

func reportCommand() *command {
	c := &command{
		name:    "report",
		args:    "FILE -o report.html [flags]",
		summary: "write one self-contained HTML page with predictions, plots and analysis",
		long: `Predicts (as prophet predict does, with the same flags), analyzes (as prophet
analyze does) and writes everything into one HTML page that needs no network
to open: the prediction table, speedup curves against linear and the
work/span bounds, the regions that limit scaling, burden factors and, when
the synthesizer ran (--emulator ff,syn), a factored speedup plot, and what
to optimize first (prophet whatif --sweep at the largest --threads). With
--races, the result of prophet race --format json becomes a safety section:
the apparent races between the tasks, or that none were found.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		out := fs.StringP("output", "o", "", "the HTML file to write (required)")
		races := fs.String("races", "", "a race run's result (prophet race --format json > FILE) for the page's safety section")
		measuredPath := fs.String("measured", "", "a real curve (prophet measure -o FILE) to draw over the predictions")
		var pf predictFlags
		pf.register(c, fs)
		if err := parse(fs, args); err != nil {
			return err
		}
		path, err := oneFile(fs, "profile")
		if err != nil {
			return err
		}
		if *out == "" {
			return usagef("report: name the page to write with -o FILE.html")
		}
		if !e.checkOnly {
			if err := checkOutputs([]string{*out}, path, *races, *measuredPath, pf.machine); err != nil {
				return err
			}
		}
		var safety *racereport.Result
		if *races != "" && !e.checkOnly {
			if safety, err = readRaces(*races); err != nil {
				return err
			}
		}
		var measured *report.Measured
		if *measuredPath != "" && !e.checkOnly {
			if measured, err = readMeasured(*measuredPath); err != nil {
				return err
			}
		}
		pl, t, err := pf.load(e, path)
		if err != nil {
			return err
		}
		preds, err := predictAll(e, t, path, pl)
		if err != nil {
			return err
		}
		if err := writeReport(*out, t, path, pl, extras{safety: safety, measured: measured}, preds); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "report written to %s\n", *out)
		return nil
	}
	return c
}

// readRaces reads a race run's result from path.
func readRaces(path string) (*racereport.Result, error) {
	res, err := readWith(path, racereport.ReadJSON)
	if err != nil {
		return nil, fmt.Errorf("--races %s: %w", path, err)
	}
	return res, nil
}

// readMeasured reads a real curve written by prophet measure.
func readMeasured(path string) (*report.Measured, error) {
	m, err := readWith(path, report.ReadMeasured)
	if err != nil {
		return nil, fmt.Errorf("--measured %s: %w", path, err)
	}
	return m, nil
}

// extras are what a report may show beside the predictions: a race
// run's result and a real curve (each nil for none).
type extras struct {
	safety   *racereport.Result
	measured *report.Measured
}

// writeReport writes the HTML report for t with the given predictions
// and extras.
func writeReport(out string, t *tree.Tree, profile string, pl *plan, x extras, preds ...*report.Predictions) error {
	a, err := analyze.Analyze(t, analyze.Options{Overheads: pl.machine.Overheads, Threads: pl.threads})
	if err != nil {
		return fmt.Errorf("analyzing %s: %w", profile, err)
	}
	tot := t.Totals()
	page := report.Page{
		Title:     "prophet report: " + profile,
		Program:   t.Meta.Program,
		Profile:   profile,
		Generated: time.Now().Format(time.RFC1123),
		SerialNs:  float64(tot.SerialNs),
		Analysis:  a,
		Totals:    &tot,
		Safety:    x.safety,
		Measured:  x.measured,
	}
	if sw, err := sweep(t, a, pl); err == nil {
		page.Sweep = &sw
	} else {
		page.Notes = append(page.Notes, "no what-to-optimize-first table: "+err.Error())
	}
	for _, p := range preds {
		page.Results = append(page.Results, p.Results...)
		for _, n := range p.Notes {
			if !slices.Contains(page.Notes, n) {
				page.Notes = append(page.Notes, n)
			}
		}
		if page.Memory == "" {
			page.Memory = p.Memory
		}
	}
	return writeFileAtomic(out, func(w io.Writer) error { return report.HTML(w, page) })
}
