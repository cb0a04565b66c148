package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/tree"
)

// WriteAnalysisJSON writes a as one indented JSON object (work_ns,
// span_ns, parallelism, burdened_span_ns, lock_bound, locks, sections,
// regions, bounds, ...).
func WriteAnalysisJSON(w io.Writer, a *analyze.Analysis) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(a); err != nil {
		return fmt.Errorf("writing the analysis as JSON: %w", err)
	}
	return nil
}

// ShortLockNotes returns a sentence for each of a's short locks
// (Analysis.ShortLocks): how long it is held at a time and for what
// share of the work, against a spinning waiter's check, and that real
// runs fall into one of two regimes at it from run to run, which a
// prediction cannot tell apart: a real speedup may land far from ff's,
// on either side. For a lock none of whose critical sections is marked
// indexed, it adds when to mark them: at a lock this short, where the
// data's line moves (before the hold or inside it) decides much of the
// prediction.
func ShortLockNotes(a *analyze.Analysis) []string {
	var out []string
	for _, l := range a.ShortLocks {
		s := fmt.Sprintf("lock %d is held %s at a time, %.0f%% of the work, less than the %s between two checks of a goroutine spinning for it: "+
			"threads that meet at it wait a whole check, and real runs either take turns at it or meet at it at nearly every other Lock, "+
			"from run to run; the speedup bounds have them take turns, and a real speedup can land far from ff's, on either side",
			l.ID, durNs(float64(l.HeldNs)/float64(l.Acquisitions)), 100*float64(l.HeldNs)/float64(a.WorkNs), durNs(a.Overheads.SpinCheckNs()))
		if l.Indexed == 0 {
			s += fmt.Sprintf(". If its critical sections write data the task picks (a histogram's bin, a slot by key) rather than one fixed variable, "+
				"mark them with annotate.LockIndexed(%d, ...): a parallel run fetches that data only once it holds the lock", l.ID)
		}
		out = append(out, s)
	}
	return out
}

// Fine spawn loops: below FineSpawnNs a task, in a loop of FineSpawnTasks
// tasks or more in one run of a section, ff's predictions of a goroutine
// per task (spawn, errgroup) are its least accurate: what a goroutine
// costs Go grows with the task's length and with how many goroutines
// are alive at once (docs/measurements.md), and ff follows the first
// (machine.Overheads.SpawnRunFor) but not the second.
const (
	FineSpawnNs    = 2000
	FineSpawnTasks = 10_000
)

// FineSpawnNotes returns a sentence for each top-level section of t
// that spawns, in one run, at least FineSpawnTasks tasks of less than
// FineSpawnNs on average: that ff's spawn and errgroup predictions are
// its least accurate for it, and that the synthesizer,
// which spawns real goroutines, predicts them on this machine's cores. A
// section run many times is named once.
func FineSpawnNotes(t *tree.Tree) []string {
	var out []string
	seen := map[string]bool{}
	for _, sec := range t.Root.Children {
		if sec.Kind != tree.KindSec || seen[sec.Name] {
			continue
		}
		var tasks, work int64
		for _, c := range sec.Children {
			if c.Kind == tree.KindTask {
				tasks += c.Reps()
				work += tree.Work(c)
			}
		}
		if tasks < FineSpawnTasks || float64(work) >= FineSpawnNs*float64(tasks) {
			continue
		}
		seen[sec.Name] = true
		out = append(out, fmt.Sprintf("section %s has %s tasks a run, %s each on average: for loops of tasks this short, ff's spawn and errgroup predictions are its least accurate, too low or too high "+
			"(what a goroutine costs Go grows with how many are alive at once, which ff does not model); "+
			"--emulator ff,syn adds the synthesizer's, which spawns real goroutines on this machine's cores",
			sec.Name, count(tasks), durNs(float64(work)/float64(tasks))))
	}
	return out
}

// WriteAnalysisTable writes a for people: the totals, the speedup
// bounds, the top-level sections and the first most regions (all when
// most ≤ 0).
func WriteAnalysisTable(w io.Writer, a *analyze.Analysis, most int) error {
	ew := &errWriter{w: w}
	ew.printf("work T1      %s\n", durNs(float64(a.WorkNs)))
	ew.printf("span T∞      %s\n", durNs(float64(a.SpanNs)))
	ew.printf("parallelism  %.2f\n", a.Parallelism)
	ew.printf("burdened     span %s, parallelism %.2f (fork %s + wake-up %s, join %s, task %s, lock %s charged on the path)\n",
		durNs(float64(a.BurdenedSpanNs)), a.BurdenedParallelism,
		durNs(a.Overheads.ForkNs), durNs(a.Overheads.LateStartNs()), durNs(a.Overheads.JoinNs), durNs(max(a.Overheads.SpawnNs, a.Overheads.ChunkNs)), durNs(a.Overheads.LockNs))
	if step := a.Overheads.WakeStepNs; step > 0 && a.BurdenedForks > 0 {
		ew.printf("wake chain   %s a thread beyond two at each team start, %s on the path (in the lower bounds)\n",
			durNs(step), count(a.BurdenedForks))
	}
	if a.LockBound > 0 {
		l := a.Locks[0]
		ew.printf("lock bound   %.2f (lock %d held %s over %s acquisitions)\n", a.LockBound, l.ID, durNs(float64(l.HeldNs)), count(l.Acquisitions))
	} else {
		ew.printf("lock bound   none (no locks)\n")
	}
	for _, n := range ShortLockNotes(a) {
		ew.printf("short lock   %s\n", n)
	}
	ew.printf("tasks        %s\n", count(a.Tasks))
	if len(a.Bounds) > 0 {
		ew.printf("\nspeedup bounds\n")
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "threads\tlower\tupper\t")
		for _, b := range a.Bounds {
			fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t\n", b.Threads, b.Lower, b.Upper)
		}
		tw.Flush()
	}
	if len(a.Sections) > 0 {
		secs := a.Sections
		if most > 0 && len(secs) > most {
			// The largest first, so a long program's table stays short.
			secs = slices.Clone(secs)
			slices.SortStableFunc(secs, func(x, y analyze.Section) int { return cmp.Compare(y.WorkNs, x.WorkNs) })
			secs = secs[:most]
			ew.printf("\ntop-level sections (the %d largest of %d)\n", most, len(a.Sections))
		} else {
			ew.printf("\ntop-level sections\n")
		}
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "section\truns\twork\tspan\tparallelism\tburdened span\tlongest lock")
		for _, s := range secs {
			lk := "-"
			if s.MaxLockNs > 0 {
				lk = durNs(float64(s.MaxLockNs))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n", a.Label(s), count(s.Count), durNs(float64(s.WorkNs)),
				durNs(float64(s.SpanNs)), s.Parallelism, durNs(float64(s.BurdenedSpanNs)), lk)
		}
		tw.Flush()
	}
	writeRegions(ew, a, most)
	return ew.err
}

func writeRegions(ew *errWriter, a *analyze.Analysis, most int) {
	if len(a.Regions) == 0 {
		return
	}
	ew.printf("\nregions (the first limits scaling most)\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "region\tinstances\twork\tspan\tparallelism\ton span\town on span")
	span := float64(a.SpanNs)
	for i, r := range a.Regions {
		if most > 0 && i == most {
			tw.Flush()
			ew.printf("(%d more regions)\n", len(a.Regions)-most)
			return
		}
		pct := func(ns int64) string {
			if span <= 0 {
				return durNs(float64(ns))
			}
			return fmt.Sprintf("%s (%.0f%%)", durNs(float64(ns)), 100*float64(ns)/span)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n", r.Name+ShortSite(r.Site), count(r.Instances), durNs(float64(r.WorkNs)),
			durNs(float64(r.SpanNs)), r.Parallelism, pct(r.OnSpanNs), pct(r.SelfOnSpanNs))
	}
	tw.Flush()
}

// WhatIf is a before/after comparison for `prophet whatif`.
type WhatIf struct {
	// Change describes what was changed ("task:row 2x faster").
	Change string
	// Before and After are the analyses of the original and changed
	// trees.
	Before, After *analyze.Analysis
	// BeforeResults and AfterResults are optional predictions of both
	// trees (same emulators, schedules and thread counts); a row that
	// only one of them has is not shown.
	BeforeResults, AfterResults []emulate.Result
	// Notes are one-sentence remarks on the predictions (rows left out).
	Notes []string
}

// WriteWhatIfTable writes the comparison for people.
func WriteWhatIfTable(w io.Writer, c WhatIf) error {
	ew := &errWriter{w: w}
	ew.printf("what if: %s\n\n", c.Change)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tbefore\tafter\tchange\t")
	b, a := c.Before, c.After
	row := func(name string, x, y float64, f func(float64) string) {
		ch := "-"
		if x != 0 {
			ch = fmt.Sprintf("%+.1f%%", 100*(y-x)/x)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, f(x), f(y), ch)
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	row("work", float64(b.WorkNs), float64(a.WorkNs), durNs)
	row("span", float64(b.SpanNs), float64(a.SpanNs), durNs)
	row("parallelism", b.Parallelism, a.Parallelism, num)
	row("burdened span", float64(b.BurdenedSpanNs), float64(a.BurdenedSpanNs), durNs)
	row("burdened parallelism", b.BurdenedParallelism, a.BurdenedParallelism, num)
	for i := range min(len(b.Bounds), len(a.Bounds)) {
		if b.Bounds[i].Threads == a.Bounds[i].Threads {
			row(fmt.Sprintf("upper bound, %d threads", b.Bounds[i].Threads), b.Bounds[i].Upper, a.Bounds[i].Upper, num)
		}
	}
	type key struct {
		em, sched string
		threads   int
		mem       bool
	}
	after := map[key]float64{}
	for _, s := range c.AfterResults {
		after[key{s.Emulator, s.Schedule.String(), s.Threads, s.MemoryModel}] = s.Speedup
	}
	for _, r := range c.BeforeResults {
		s, ok := after[key{r.Emulator, r.Schedule.String(), r.Threads, r.MemoryModel}]
		if !ok {
			continue
		}
		name := fmt.Sprintf("speedup %s %s %d", r.Emulator, r.Schedule, r.Threads)
		if r.MemoryModel {
			name += " +mem"
		}
		row(name, r.Speedup, s, num)
	}
	tw.Flush()
	if len(c.Notes) > 0 {
		ew.printf("\n")
		for _, n := range c.Notes {
			ew.printf("%s.\n", tableSentence(n))
		}
	}
	if len(a.Regions) > 0 {
		ew.printf("\nafter the change, the regions limiting scaling most:\n")
		writeRegions(ew, a, 5)
	}
	return ew.err
}

// WritePlan writes the result of analyze.TargetParallelism for people.
func WritePlan(w io.Writer, p analyze.Plan) error {
	ew := &errWriter{w: w}
	ew.printf("target parallelism %g (each region split %d ways)\n", p.Target, p.Factor)
	if len(p.Changes) == 0 {
		ew.printf("no change made\n")
	}
	for i, c := range p.Changes {
		ew.printf("%d. parallelize %s\n", i+1, c.Region)
	}
	verdict := "reached"
	if !p.Reached {
		verdict = "not reached"
	}
	ew.printf("parallelism %.2f -> %.2f: target %s\n", p.Before, p.After, verdict)
	return ew.err
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

// Write implements io.Writer.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}

// ShortSite returns an annotation site (file:line) as it follows a
// region name in tables: "  (base.go:12)", or "" for none.
func ShortSite(site string) string {
	if site == "" {
		return ""
	}
	return "  (" + filepath.Base(site) + ")"
}
