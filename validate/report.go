package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteTable writes the summary as a plain table (errors in percent),
// followed by the notes.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	short := slices.ContainsFunc(r.Summary, func(s Summary) bool { return s.ShortLocks > 0 })
	if short {
		// The samples with a short lock apart: see Row.ShortLock.
		fmt.Fprintln(tw, "test\temulator\tschedule\tthreads\tsamples\tavg error\tmax error\tshort-lock samples\tavg error, the rest\tmax error, the rest\t")
	} else {
		fmt.Fprintln(tw, "test\temulator\tschedule\tthreads\tsamples\tavg error\tmax error\t")
	}
	for _, s := range r.Summary {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f%%\t%.1f%%\t",
			s.Test, s.Emulator, s.Schedule, s.Threads, s.Samples, 100*s.AvgError, 100*s.MaxError)
		switch {
		case !short:
		case s.ShortLocks < s.Samples:
			fmt.Fprintf(tw, "%d\t%.1f%%\t%.1f%%\t", s.ShortLocks, 100*s.AvgErrorRest, 100*s.MaxErrorRest)
		default:
			fmt.Fprintf(tw, "%d\t-\t-\t", s.ShortLocks)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the validation table: %w", err)
	}
	for _, n := range r.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return fmt.Errorf("writing the validation table: %w", err)
		}
	}
	_, err := fmt.Fprintf(w, "%d rows on %d cores in %v\n", len(r.Rows), r.Cores, time.Duration(r.ElapsedNs).Round(time.Millisecond))
	if err != nil {
		return fmt.Errorf("writing the validation table: %w", err)
	}
	return nil
}

// WriteRows writes every row as a plain table: one line per sample,
// emulator, schedule and thread count, with the spread of the real runs,
// the rounds of runs taken (more than Config.Repeats where a median had
// not settled), the ratio of recorded work to the real serial time (both
// tell a noisy measurement from a wrong prediction), the real runs' CPU
// inflation (which tells a memory effect from a scheduling one; "-"
// where unknown) and the prediction's (Row.PredictedCPU; "-" where the
// emulator does not count busy time), what a cache line's move between
// cores cost beside them (Row.LineNs; "-" where not measured), and "yes"
// where the sample has a short lock (Row.ShortLock).
func (r *Report) WriteRows(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "test\tsample\temulator\tschedule\tthreads\tpredicted\treal\terror\tspread\trounds\trecorded/serial\tcpu inflation\tpredicted cpu\tline ns\tβ\tβ from\tshort lock\tdescription")
	for _, x := range r.Rows {
		infl := "-"
		if x.CPUInflation > 0 {
			infl = fmt.Sprintf("%.3f", x.CPUInflation)
		}
		pcpu := "-"
		if x.PredictedCPU > 0 {
			pcpu = fmt.Sprintf("%.3f", x.PredictedCPU)
		}
		line := "-"
		if x.LineNs > 0 {
			line = fmt.Sprintf("%.0f", x.LineNs)
		}
		beta, from := "-", "-"
		if x.BetaSource != "" {
			beta, from = fmt.Sprintf("%.2f", x.Beta), x.BetaSource
		}
		short := "-"
		if x.ShortLock {
			short = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.1f%%\t%.1f%%\t%d\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			x.Test, x.Sample, x.Emulator, x.Schedule, x.Threads, x.Predicted, x.Real, 100*x.Error, 100*x.Spread, x.Rounds, x.RecordedNs/x.SerialNs, infl, pcpu, line, beta, from, short, x.Desc)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the validation rows: %w", err)
	}
	return nil
}

// WriteJSON writes the report as indented JSON: per-sample "rows" and a
// "summary" array (errors as fractions, 0.05 = 5%).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing the validation report: %w", err)
	}
	return nil
}

// WriteSVG writes a scatter plot of predicted against real speedups, one
// series per test, emulator and schedule, with the line y = x (a perfect
// prediction), as in the paper's figure 11.
func (r *Report) WriteSVG(w io.Writer) error {
	p := plot.New()
	p.Title.Text = "prophet validate: predicted vs. real speedup"
	p.X.Label.Text = "real speedup"
	p.Y.Label.Text = "predicted speedup"
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())

	type key struct{ test, emu, sched string }
	var order []key
	series := map[key]plotter.XYs{}
	hi := 1.0
	for _, x := range r.Rows {
		if math.IsNaN(x.Predicted) || math.IsNaN(x.Real) || math.IsInf(x.Predicted, 0) || math.IsInf(x.Real, 0) {
			continue
		}
		k := key{x.Test, x.Emulator, x.Schedule}
		if _, ok := series[k]; !ok {
			order = append(order, k)
		}
		series[k] = append(series[k], plotter.XY{X: x.Real, Y: x.Predicted})
		hi = math.Max(hi, math.Max(x.Real, x.Predicted))
	}
	hi = math.Ceil(hi*1.05*4) / 4

	diag := plotter.NewFunction(func(x float64) float64 { return x })
	diag.Color = plotutil.Color(7)
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(diag)
	p.Legend.Add("y = x", diag)

	for i, k := range order {
		s, err := plotter.NewScatter(series[k])
		if err != nil {
			return fmt.Errorf("plotting %s/%s/%s: %w", k.test, k.emu, k.sched, err)
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Shape = plotutil.Shape(i)
		s.GlyphStyle.Radius = vg.Points(2.5)
		if k.emu == "syn" {
			s.GlyphStyle.Shape = draw.CrossGlyph{}
		}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("%s %s %s", k.test, k.emu, k.sched), s)
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = hi, hi

	wt, err := p.WriterTo(6*vg.Inch, 6*vg.Inch, "svg")
	if err != nil {
		return fmt.Errorf("drawing the validation plot: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("writing the validation plot: %w", err)
	}
	return nil
}
