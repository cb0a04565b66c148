package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/racereport"
	"github.com/parallel-prophet/prophet/tree"
)

// Page is everything the HTML report shows. Only Results or Analysis is
// needed; each part of the page that lacks its data says so.
type Page struct {
	// Title heads the page; empty means "prophet report".
	Title string
	// Program is the profiled program's command line (tree.Meta.Program),
	// Profile the profile file, Generated when the report was made.
	Program, Profile, Generated string
	// SerialNs is the program's serial time (the tree's work).
	SerialNs float64
	// Memory is the memory model's status sentence, as predict prints it.
	Memory string
	// Notes are further one-sentence remarks (rows left out, ...).
	Notes []string
	// Results are the predictions (every emulator, schedule and thread
	// count; with the memory model on, rows with and without it).
	Results []emulate.Result
	// Analysis is the work/span profile (analyze.Analyze); its Bounds
	// are drawn on the speedup plot.
	Analysis *analyze.Analysis
	// Totals are the tree's totals (tree.Tree.Totals), nil to leave the
	// section out.
	Totals *tree.Totals
	// MaxRegions caps the rows of the region table; zero means 25.
	MaxRegions int
	// Safety is a race-mode run's result (prophet race), nil to leave
	// the section out.
	Safety *racereport.Result
	// Sweep is "what to optimize first" (prophet whatif --sweep), nil to
	// leave the section out.
	Sweep *Sweep
	// Measured is the real program's curve (prophet measure), drawn over
	// the predictions; nil for none.
	Measured *Measured
}

//go:embed report.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("report").Parse(pageTemplate))

// view is the page prepared for the template: every number already
// formatted.
type view struct {
	Title, Program, Profile, Generated string
	Serial                             string
	Best                               string
	BestDetail                         string
	Parallelism                        string
	Memory                             string
	Notes                              []string

	PredHead  []string
	PredRows  []predRow
	PredNote  string
	Speedup   template.HTML
	PlotError string

	HasAnalysis bool
	Metrics     [][2]string
	Bounds      []boundRow
	Sections    [][]string
	// SectionsMore counts the top-level sections left out of Sections.
	SectionsMore int
	Regions      []regionRow
	RegionsMore  int

	BurdenHead []string
	BurdenRows [][]string
	BurdenPlot template.HTML

	Factored     template.HTML
	FactoredWhy  string
	FactoredName string

	Totals [][2]string

	Safety *safetyView
	Sweep  *sweepView
}

// sweepView is the what-to-optimize-first section, formatted.
type sweepView struct {
	Head    string
	Changes []string
	Rows    []sweepRow
}

type sweepRow struct {
	Region string
	Cells  []string
	Gain   string
	Bar    int // the best gain as a share of the largest, 0..100
}

// safetyView is the safety section: a race run's result, formatted.
type safetyView struct {
	Verdict   string
	Races     []raceRow
	Unchecked string
}

type raceRow struct {
	N, Kind, Locks  string
	Op1, Site1, By1 string
	Op2, Site2, By2 string
}

type predRow struct {
	Threads string
	Cells   []predCell
}

type predCell struct {
	Text string
	Best bool
}

type boundRow struct{ Threads, Lower, Upper, Best string }

type regionRow struct {
	Name, Site, Instances, Work, Span, Parallelism, OnSpan, OnSpanPct, Self, SelfPct string
	Bar                                                                              int // own share of the span, 0..100
}

// HTML writes the report as one self-contained HTML page: inline CSS and
// SVG, no scripts, fonts or anything else fetched from the network.
func HTML(w io.Writer, in Page) error {
	v, err := buildView(in)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, v); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

func buildView(in Page) (view, error) {
	v := view{
		Title: in.Title, Program: in.Program, Profile: in.Profile, Generated: in.Generated,
		Memory: sentence(in.Memory), Notes: make([]string, 0, len(in.Notes)),
	}
	if v.Title == "" {
		v.Title = "prophet report"
	}
	for _, n := range in.Notes {
		v.Notes = append(v.Notes, sentence(n))
	}
	serial := in.SerialNs
	if serial == 0 && in.Analysis != nil {
		serial = float64(in.Analysis.WorkNs)
	}
	if serial == 0 && len(in.Results) > 0 {
		serial = in.Results[0].SerialNs
	}
	v.Serial = durNs(serial)
	a := in.Analysis

	// Summary: best predicted speedup, preferring memory-model rows.
	best, ok := bestResult(in.Results)
	if ok {
		v.Best = fmt.Sprintf("%.2f×", best.Speedup)
		v.BestDetail = fmt.Sprintf("with %d threads, %s emulator, %s schedule", best.Threads, best.Emulator, best.Schedule)
		if best.MemoryModel {
			v.BestDetail += ", burden factors applied"
		}
	} else {
		v.Best = "no predictions"
	}
	if a != nil {
		v.Parallelism = fmt.Sprintf("%.2f", a.Parallelism)
	}

	predictionTable(&v, in.Results, best, ok)

	// The speedup plot.
	if len(in.Results) > 0 || a != nil || in.Measured != nil {
		pi := PlotInput{Results: in.Results, Measured: in.Measured}
		if a != nil {
			pi.Bounds = boundsFor(a, in.Results)
		}
		var sb bytes.Buffer
		if err := SpeedupPlot(&sb, pi); err != nil {
			v.PlotError = err.Error()
		} else {
			v.Speedup = inlineSVG(sb.Bytes())
		}
	}

	if a != nil {
		analysisTables(&v, a, in.Results, in.MaxRegions)
	}
	burdenTable(&v, in.Results)
	factoredSection(&v, in.Results)

	if in.Safety != nil {
		v.Safety = safetySection(in.Safety)
	}
	if in.Sweep != nil {
		v.Sweep = sweepSection(in.Sweep)
	}
	if t := in.Totals; t != nil {
		locks := "none"
		if len(t.LockIDs) > 0 {
			locks = tree.FormatIDs(t.LockIDs)
		}
		v.Totals = [][2]string{
			{"Serial time (sum of all U and L lengths)", durNs(float64(t.SerialNs))},
			{"Top-level sections", count(t.TopSections)},
			{"Sections (all instances)", count(t.Sections)},
			{"Tasks (all instances)", count(t.Tasks)},
			{"Lock acquisitions", count(t.Locks)},
			{"Lock ids", locks},
			{"Stored nodes (compressed)", count(t.Nodes)},
			{"Nodes when expanded", count(t.ExpandedNodes)},
			{"Depth", strconv.Itoa(t.MaxDepth)},
		}
	}
	return v, nil
}

// bestResult returns the result with the highest speedup, among the
// memory-model rows when there are any.
func bestResult(rs []emulate.Result) (emulate.Result, bool) {
	mem := slices.ContainsFunc(rs, func(r emulate.Result) bool { return r.MemoryModel })
	var best emulate.Result
	found := false
	for _, r := range rs {
		if mem && !r.MemoryModel {
			continue
		}
		if !found || r.Speedup > best.Speedup {
			best, found = r, true
		}
	}
	return best, found
}

func predictionTable(v *view, rs []emulate.Result, best emulate.Result, haveBest bool) {
	if len(rs) == 0 {
		return
	}
	type col struct {
		emu, sched string
		mem        bool
	}
	var cols []col
	seen := map[col]bool{}
	cell := map[col]map[int]emulate.Result{}
	var threads []int
	for _, r := range rs {
		c := col{r.Emulator, r.Schedule.String(), r.MemoryModel}
		if !seen[c] {
			seen[c] = true
			cols = append(cols, c)
			cell[c] = map[int]emulate.Result{}
		}
		cell[c][r.Threads] = r
		threads = append(threads, r.Threads)
	}
	slices.Sort(threads)
	threads = slices.Compact(threads)
	v.PredHead = []string{"threads"}
	for _, c := range cols {
		h := c.emu + " " + c.sched
		if c.mem {
			h += " +mem"
		}
		v.PredHead = append(v.PredHead, h)
	}
	bc := col{best.Emulator, best.Schedule.String(), best.MemoryModel}
	for _, t := range threads {
		row := predRow{Threads: strconv.Itoa(t)}
		for _, c := range cols {
			r, ok := cell[c][t]
			if !ok {
				row.Cells = append(row.Cells, predCell{Text: "–"})
				continue
			}
			mark := "" // an estimate from a sample, as the table's ~ (the notes say how)
			if r.Sampled {
				mark = "~"
			}
			row.Cells = append(row.Cells, predCell{
				Text: fmt.Sprintf("%.2f%s", r.Speedup, mark),
				Best: haveBest && c == bc && t == best.Threads,
			})
		}
		v.PredRows = append(v.PredRows, row)
	}
	if slices.ContainsFunc(cols, func(c col) bool { return c.mem }) {
		v.PredNote = "Columns marked +mem include the memory model's burden factors; the others assume none."
	}
}

// boundsFor returns a's bounds at the thread counts of the results (or
// a's own when there are no results).
func boundsFor(a *analyze.Analysis, rs []emulate.Result) []analyze.Bound {
	if len(rs) == 0 {
		return a.Bounds
	}
	var ts []int
	for _, r := range rs {
		ts = append(ts, r.Threads)
	}
	slices.Sort(ts)
	return a.BoundsFor(slices.Compact(ts)...)
}

func analysisTables(v *view, a *analyze.Analysis, rs []emulate.Result, most int) {
	v.HasAnalysis = true
	lock := "no locks"
	if a.LockBound > 0 {
		l := a.Locks[0]
		lock = fmt.Sprintf("%.2f (lock %d held %s in all)", a.LockBound, l.ID, durNs(float64(l.HeldNs)))
	}
	v.Metrics = [][2]string{
		{"Work T₁ (serial time)", durNs(float64(a.WorkNs))},
		{"Span T∞ (critical path)", durNs(float64(a.SpanNs))},
		{"Parallelism T₁/T∞", fmt.Sprintf("%.2f", a.Parallelism)},
		{"Burdened span (fork, wake-up, join, task and lock costs on the path)", durNs(float64(a.BurdenedSpanNs))},
		{"Burdened parallelism", fmt.Sprintf("%.2f", a.BurdenedParallelism)},
	}
	if step := a.Overheads.WakeStepNs; step > 0 && a.BurdenedForks > 0 {
		v.Metrics = append(v.Metrics, [2]string{"Wake chain (a thread beyond two at each team start on the path; in the lower bounds)",
			fmt.Sprintf("%s × %s starts", durNs(step), count(a.BurdenedForks))})
	}
	v.Metrics = append(v.Metrics,
		[2]string{"Lock bound T₁/(longest total hold of one lock)", lock},
		[2]string{"Tasks", count(a.Tasks)})
	bestAt := map[int]float64{}
	for _, r := range rs {
		bestAt[r.Threads] = max(bestAt[r.Threads], r.Speedup)
	}
	for _, b := range boundsFor(a, rs) {
		row := boundRow{Threads: strconv.Itoa(b.Threads), Lower: fmt.Sprintf("%.2f", b.Lower), Upper: fmt.Sprintf("%.2f", b.Upper), Best: "–"}
		if s, ok := bestAt[b.Threads]; ok {
			row.Best = fmt.Sprintf("%.2f", s)
		}
		v.Bounds = append(v.Bounds, row)
	}
	secs := a.Sections
	if len(secs) > maxSectionRows {
		// The largest first: a long program's table stays readable.
		secs = slices.Clone(secs)
		slices.SortStableFunc(secs, func(x, y analyze.Section) int { return cmp.Compare(y.WorkNs, x.WorkNs) })
		secs = secs[:maxSectionRows]
		v.SectionsMore = len(a.Sections) - maxSectionRows
	}
	for _, s := range secs {
		lk := "–"
		if s.MaxLockNs > 0 {
			lk = durNs(float64(s.MaxLockNs))
		}
		v.Sections = append(v.Sections, []string{a.Label(s), count(s.Count), durNs(float64(s.WorkNs)), durNs(float64(s.SpanNs)),
			fmt.Sprintf("%.2f", s.Parallelism), durNs(float64(s.BurdenedSpanNs)), lk})
	}
	if most <= 0 {
		most = 25
	}
	span := float64(a.SpanNs)
	for i, r := range a.Regions {
		if i == most {
			v.RegionsMore = len(a.Regions) - most
			break
		}
		row := regionRow{
			Name: r.Name, Site: strings.TrimSpace(ShortSite(r.Site)), Instances: count(r.Instances), Work: durNs(float64(r.WorkNs)), Span: durNs(float64(r.SpanNs)),
			Parallelism: fmt.Sprintf("%.2f", r.Parallelism), OnSpan: durNs(float64(r.OnSpanNs)), Self: durNs(float64(r.SelfOnSpanNs)),
		}
		if span > 0 {
			row.OnSpanPct = fmt.Sprintf("%.0f%%", 100*float64(r.OnSpanNs)/span)
			row.SelfPct = fmt.Sprintf("%.0f%%", 100*float64(r.SelfOnSpanNs)/span)
			row.Bar = int(100*float64(r.SelfOnSpanNs)/span + 0.5)
		}
		v.Regions = append(v.Regions, row)
	}
}

// burdenTable lists the burden factors β_t applied to each top-level
// section, per thread count, when any differs from 1.
func burdenTable(v *view, rs []emulate.Result) {
	type key struct {
		name string
		t    int
	}
	beta := map[key]float64{}
	var names []string
	var threads []int
	any := false
	for _, r := range rs {
		if !r.MemoryModel {
			continue
		}
		for _, s := range r.Sections {
			k := key{s.Name, r.Threads}
			if _, ok := beta[k]; !ok {
				if !slices.Contains(names, s.Name) {
					names = append(names, s.Name)
				}
				threads = append(threads, r.Threads)
			}
			beta[k] = s.Burden
			if s.Burden != 1 {
				any = true
			}
		}
	}
	if !any {
		return
	}
	slices.Sort(threads)
	threads = slices.Compact(threads)
	v.BurdenHead = []string{"section"}
	for _, t := range threads {
		v.BurdenHead = append(v.BurdenHead, fmt.Sprintf("β at %d", t))
	}
	var curves []BurdenCurve
	for _, n := range names {
		row := []string{n}
		c := BurdenCurve{Name: n}
		for _, t := range threads {
			if b, ok := beta[key{n, t}]; ok {
				row = append(row, fmt.Sprintf("%.3f", b))
				c.Threads = append(c.Threads, t)
				c.Beta = append(c.Beta, b)
			} else {
				row = append(row, "–")
			}
		}
		v.BurdenRows = append(v.BurdenRows, row)
		if len(c.Threads) > 0 {
			curves = append(curves, c)
		}
	}
	var sb bytes.Buffer
	if len(threads) > 1 && BurdenPlot(&sb, curves) == nil {
		v.BurdenPlot = inlineSVG(sb.Bytes())
	}
}

// factoredSection draws the factored speedup plot for the measured
// (syn) results of the schedule with the best speedup at the most
// threads, or says why there is none.
func factoredSection(v *view, rs []emulate.Result) {
	type key struct {
		emu, sched string
		mem        bool
	}
	groups := map[key][]emulate.Result{}
	var order []key
	for _, r := range rs {
		measured := false
		for _, s := range r.Sections {
			if s.BusyNs > 0 {
				measured = true
			}
		}
		k := key{r.Emulator, r.Schedule.String(), r.MemoryModel}
		// Only the synthesizer measures busy and idle time; ff's are
		// its own bookkeeping, not a measurement to factor.
		if r.Emulator == "syn" && (measured || r.Threads == 1) {
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], r)
		}
	}
	var bestKey key
	var bestPts []FactoredPoint
	var bestSerial bool
	bestScore := -1.0
	for _, k := range order {
		pts, usedSerial, ok := Factored(groups[k])
		if !ok {
			continue
		}
		last := pts[len(pts)-1]
		score := float64(last.Threads)*1e6 + last.Actual
		if score > bestScore {
			bestScore, bestKey, bestPts, bestSerial = score, k, pts, usedSerial
		}
	}
	if bestPts == nil {
		if len(rs) == 0 {
			v.FactoredWhy = "No predictions were made."
		} else {
			v.FactoredWhy = "No emulator measured busy and idle time (only the synthesizer, syn, does, by running the program's tree on this machine's cores), so there is no factored speedup plot. Predict with --emulator syn to get one."
		}
		return
	}
	name := bestKey.emu + ", " + bestKey.sched
	if bestKey.mem {
		name += ", memory model"
	}
	v.FactoredName = name
	var sb bytes.Buffer
	if err := FactoredPlot(&sb, "Factored speedup ("+name+")", bestPts); err != nil {
		v.FactoredWhy = err.Error()
		return
	}
	v.Factored = inlineSVG(sb.Bytes())
	if bestSerial {
		v.FactoredWhy = "There was no 1-thread prediction for this schedule, so the serial time stands in for T₁: maximal speedup is then linear."
	}
}

// inlineSVG strips the XML prolog and comments that come before the
// <svg> element, so the picture can sit inside HTML.
func inlineSVG(b []byte) template.HTML {
	if i := bytes.Index(b, []byte("<svg")); i >= 0 {
		b = b[i:]
	}
	return template.HTML(b) // gonum/plot output; text is escaped by svgo
}

func sentence(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// durNs writes nanoseconds in the largest unit that keeps the value at
// or above 1, with three significant digits.
func durNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

// count writes n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// maxSectionRows is how many top-level sections the page lists.
const maxSectionRows = 20

// safetySection formats a race run's result.
func safetySection(r *racereport.Result) *safetyView {
	sv := &safetyView{}
	switch len(r.Races) {
	case 0:
		sv.Verdict = fmt.Sprintf("No apparent races between the %d tasks checked, for the input that ran.", r.Tasks)
	default:
		sv.Verdict = fmt.Sprintf("%d apparent race(s) between tasks marked parallel: the parallel version would not be safe as annotated.", len(r.Races))
	}
	site := func(a racereport.Access) string {
		return fmt.Sprintf("%s:%d %s", filepath.Base(a.Site.File), a.Site.Line, a.Site.Func)
	}
	op := func(a racereport.Access) string {
		if a.Map {
			return a.Op + " (map)"
		}
		return a.Op
	}
	for i, race := range r.Races {
		sv.Races = append(sv.Races, raceRow{
			N: strconv.Itoa(i + 1), Kind: race.Kind, Locks: race.Locks(),
			Op1: op(race.First), Site1: site(race.First), By1: race.First.Where(),
			Op2: op(race.Second), Site2: site(race.Second), By2: race.Second.Where(),
		})
	}
	if len(r.Unchecked) > 0 {
		q := make([]string, len(r.Unchecked))
		for i, n := range r.Unchecked {
			q[i] = strconv.Quote(n)
		}
		sv.Unchecked = "section(s) " + strings.Join(q, ", ")
	}
	return sv
}

// sweepSection formats a sweep, with a bar per region for its best gain.
func sweepSection(s *Sweep) *sweepView {
	sv := &sweepView{
		Head:    fmt.Sprintf("Predicted speedup over today's serial run at %d threads (%s, %s) if one region changed; unchanged %.2f.", s.Threads, s.Emulator, s.Schedule, s.Base),
		Changes: s.Changes,
	}
	top := 0.0
	for _, r := range s.Rows {
		top = max(top, r.Best-s.Base)
	}
	for _, r := range s.Rows {
		row := sweepRow{Region: r.Region, Gain: sweepCell(r.Best, s.Base)}
		for _, v := range r.Speedups {
			row.Cells = append(row.Cells, sweepCell(v, s.Base))
		}
		if top > 0 && r.Best > s.Base {
			row.Bar = int(math.Round(100 * (r.Best - s.Base) / top))
		}
		sv.Rows = append(sv.Rows, row)
	}
	return sv
}
