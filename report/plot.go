package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
)

// PlotInput is what SpeedupPlot draws.
type PlotInput struct {
	// Title is drawn above the plot; empty means "Predicted speedup".
	Title string
	// Results are the predictions: one line per emulator, schedule and
	// memory model, over the thread counts present.
	Results []emulate.Result
	// Bounds, when not empty, are drawn as the work/span band between
	// the lower and upper speedup bounds (package analyze).
	Bounds []analyze.Bound
	// Measured, when not nil, is a real program's curve (prophet
	// measure), drawn over the predictions in black.
	Measured *Measured
	// Width and Height are the size of the picture; zero means 10 × 5
	// inches.
	Width, Height vg.Length
}

// The colours of schedules (colour-blind safe, after Okabe and Ito) and
// of the reference lines.
var (
	palette = []color.RGBA{
		{0x00, 0x72, 0xB2, 0xff}, // blue
		{0xD5, 0x5E, 0x00, 0xff}, // vermillion
		{0x00, 0x9E, 0x73, 0xff}, // bluish green
		{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
		{0xE6, 0x9F, 0x00, 0xff}, // orange
		{0x56, 0xB4, 0xE9, 0xff}, // sky blue
		{0x99, 0x99, 0x33, 0xff}, // olive
		{0x33, 0x33, 0x33, 0xff}, // dark grey
	}
	grey      = color.RGBA{0x88, 0x88, 0x88, 0xff}
	boundFill = color.RGBA{0xdd, 0xe6, 0xf0, 0xff}
	boundLine = color.RGBA{0x5a, 0x78, 0x96, 0xff}
)

// series is one line of a speedup plot.
type series struct {
	emulator, schedule string
	memory             bool
	pts                plotter.XYs
}

func (s series) label() string {
	l := s.emulator + " " + s.schedule
	if s.memory {
		l += " +mem"
	}
	return l
}

// seriesOf groups results into lines, in order of first appearance,
// each sorted by threads.
func seriesOf(results []emulate.Result) []series {
	var out []series
	index := map[string]int{}
	for _, r := range results {
		k := r.Emulator + "\x00" + r.Schedule.String() + "\x00" + strconv.FormatBool(r.MemoryModel)
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, series{emulator: r.Emulator, schedule: r.Schedule.String(), memory: r.MemoryModel})
		}
		out[i].pts = append(out[i].pts, plotter.XY{X: float64(r.Threads), Y: r.Speedup})
	}
	for i := range out {
		slices.SortFunc(out[i].pts, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// newPlot returns a plot styled for prophet: sans-serif text, a grid,
// axes from zero.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	sans(&p.Title.TextStyle, 13)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	sans(&p.X.Label.TextStyle, 11)
	sans(&p.Y.Label.TextStyle, 11)
	sans(&p.X.Tick.Label, 10)
	sans(&p.Y.Tick.Label, 10)
	g := plotter.NewGrid()
	g.Vertical.Color = color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
	g.Horizontal.Color = g.Vertical.Color
	p.Add(g)
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Tick.Marker = speedupTicks{}
	return p
}

// threadTicks marks each thread count (every other one when crowded).
func threadTicks(threads []float64) plot.ConstantTicks {
	threads = slices.Clone(threads)
	slices.Sort(threads)
	threads = slices.Compact(threads)
	// Thread counts below 1 cannot sit on a logarithmic axis.
	for len(threads) > 1 && threads[0] < 1 {
		threads = threads[1:]
	}
	var ticks plot.ConstantTicks
	for i, t := range threads {
		label := strconv.FormatFloat(t, 'f', -1, 64)
		if len(threads) > 12 && i%2 == 1 && i != len(threads)-1 {
			label = ""
		}
		ticks = append(ticks, plot.Tick{Value: t, Label: label})
	}
	return ticks
}

// legend is a plot legend with its entry names (plot.Legend keeps
// them unexported), drawn beside the plot rather than over the data.
type legend struct {
	l     plot.Legend
	names []string
}

func newLegend() *legend {
	g := &legend{l: plot.NewLegend()}
	sans(&g.l.TextStyle, 10)
	g.l.ThumbnailWidth = vg.Points(26)
	g.l.Padding = vg.Points(4)
	return g
}

func (g *legend) add(name string, th ...plot.Thumbnailer) {
	g.l.Add(name, th...)
	g.names = append(g.names, name)
}

// speedupTicks marks the speedup axis every 0.5, 1, 2, 5, 10, ...
// so that there are about six labelled ticks.
type speedupTicks struct{}

// Ticks implements plot.Ticker.
func (speedupTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi*(1+1e-9); i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return ticks
}

// render draws p with the legend g to the right of it, as SVG.
func render(w io.Writer, p *plot.Plot, g *legend, width, height vg.Length) error {
	if width == 0 {
		width = 10 * vg.Inch
	}
	if height == 0 {
		height = 5 * vg.Inch
	}
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	// Leave room on the right for the legend: as wide as its widest
	// entry.
	em := g.l.TextStyle.Rectangle("M").Max.X
	var lw vg.Length
	for _, n := range g.names {
		lw = max(lw, g.l.TextStyle.Width(n))
	}
	lw += g.l.ThumbnailWidth + 3*em
	p.Draw(draw.Crop(dc, 0, -lw, 0, -vg.Points(4)))
	g.l.Top, g.l.Left = true, true
	g.l.Draw(draw.Crop(dc, width-lw+em, 0, 0, -vg.Points(30)))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("writing SVG: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func sans(s *text.Style, size vg.Length) {
	s.Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func line(pts plotter.XYs, c color.Color, width float64, dashes ...vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("plotting: %w", err)
	}
	l.Color = c
	l.Width = vg.Points(width)
	l.Dashes = dashes
	return l, nil
}

// SpeedupPlot draws speedup curves as SVG: threads on the x axis,
// speedup over the serial time on the y axis, one line per emulator,
// schedule and memory model, with the linear speedup and, when
// in.Bounds is set, the band between the work/span lower and upper
// bounds.
func SpeedupPlot(w io.Writer, in PlotInput) error {
	all := seriesOf(in.Results)
	if len(all) == 0 && len(in.Bounds) == 0 && (in.Measured == nil || len(in.Measured.Points) == 0) {
		return fmt.Errorf("speedup plot: nothing to draw (no predictions and no bounds)")
	}
	title := in.Title
	if title == "" {
		title = "Predicted speedup"
	}
	p := newPlot(title, "threads (cores)", "speedup over serial (×)")
	g := newLegend()
	var threads []float64
	ymax := 1.0
	for _, s := range all {
		for _, pt := range s.pts {
			threads = append(threads, pt.X)
			ymax = max(ymax, pt.Y)
		}
	}
	for _, b := range in.Bounds {
		threads = append(threads, float64(b.Threads))
	}
	var measured plotter.XYs
	if m := in.Measured; m != nil {
		for _, pt := range m.Points {
			measured = append(measured, plotter.XY{X: float64(pt.Threads), Y: pt.Speedup})
			threads = append(threads, float64(pt.Threads))
			ymax = max(ymax, pt.High, pt.Speedup)
		}
	}
	if len(threads) == 0 {
		return fmt.Errorf("speedup plot: no thread counts")
	}
	tmax := slices.Max(threads)
	// The band between the bounds, drawn first so lines lie on top.
	if len(in.Bounds) > 0 {
		upper, err := addBounds(p, g, in.Bounds)
		if err != nil {
			return err
		}
		ymax = max(ymax, upper)
	}
	// Threads on a logarithmic axis (1, 2, 4, ... equally apart), so
	// small counts do not crowd together; linear speedup through every
	// thread count shown.
	ticks := threadTicks(threads)
	var linPts plotter.XYs
	for _, tk := range ticks {
		linPts = append(linPts, plotter.XY{X: tk.Value, Y: tk.Value})
	}
	lin, err := line(linPts, grey, 1, vg.Points(6), vg.Points(3))
	if err != nil {
		return err
	}
	p.Add(lin)
	g.add("linear", lin)
	if err := addSeries(p, g, all); err != nil {
		return err
	}
	if len(measured) > 0 {
		l, sc, err := plotter.NewLinePoints(measured)
		if err != nil {
			return fmt.Errorf("speedup plot: %w", err)
		}
		l.Color, l.Width = color.Black, vg.Points(2.2)
		sc.Color, sc.Shape, sc.Radius = color.Black, draw.CrossGlyph{}, vg.Points(4)
		p.Add(l, sc)
		label := "measured (vs 1 thread)"
		if in.Measured.Disturbed {
			label = "measured, disturbed"
		}
		g.add(label, l, sc)
	}
	p.X.Scale = plot.LogScale{}
	p.X.Min = ticks[0].Value / 1.05
	p.X.Max = tmax * 1.05
	p.Y.Max = math.Ceil(ymax*1.08*2) / 2
	p.X.Tick.Marker = ticks
	return render(w, p, g, in.Width, in.Height)
}

// addBounds draws the band between the upper bounds and the worksharing
// estimates of bounds on p, with their legend entries, and returns the
// highest upper bound.
func addBounds(p *plot.Plot, g *legend, bounds []analyze.Bound) (float64, error) {
	bs := slices.Clone(bounds)
	slices.SortFunc(bs, func(a, b analyze.Bound) int { return a.Threads - b.Threads })
	var up, lo plotter.XYs
	for _, b := range bs {
		up = append(up, plotter.XY{X: float64(b.Threads), Y: b.Upper})
		lo = append(lo, plotter.XY{X: float64(b.Threads), Y: b.Lower})
	}
	ring := slices.Clone(up)
	for i := len(lo) - 1; i >= 0; i-- {
		ring = append(ring, lo[i])
	}
	if len(bs) > 1 {
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return 0, fmt.Errorf("speedup plot: %w", err)
		}
		poly.Color = boundFill
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	ul, err := line(up, boundLine, 1.2)
	if err != nil {
		return 0, err
	}
	ll, err := line(lo, boundLine, 1.2, vg.Points(2), vg.Points(2))
	if err != nil {
		return 0, err
	}
	p.Add(ul, ll)
	g.add("upper bound", ul)
	g.add("worksharing estimate", ll)
	upper := 0.0
	for _, pt := range up {
		upper = max(upper, pt.Y)
	}
	return upper, nil
}

// addSeries draws every predicted series on p: a colour per schedule, a
// marker per emulator, dashed where the memory model applied.
func addSeries(p *plot.Plot, g *legend, all []series) error {
	schedColor := map[string]int{}
	emuShape := map[string]int{}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	for _, s := range all {
		if _, ok := schedColor[s.schedule]; !ok {
			schedColor[s.schedule] = len(schedColor)
		}
		if _, ok := emuShape[s.emulator]; !ok {
			emuShape[s.emulator] = len(emuShape)
		}
		c := palette[schedColor[s.schedule]%len(palette)]
		var dashes []vg.Length
		if s.memory {
			dashes = []vg.Length{vg.Points(5), vg.Points(2)}
		}
		l, sc, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return fmt.Errorf("speedup plot: %w", err)
		}
		l.Color, l.Width, l.Dashes = c, vg.Points(1.6), dashes
		sc.Color = c
		sc.Shape = shapes[emuShape[s.emulator]%len(shapes)]
		sc.Radius = vg.Points(3)
		p.Add(l, sc)
		g.add(s.label(), l, sc)
	}
	return nil
}

// FactoredPoint is one thread count of a factored speedup plot
// (Acar, Charguéraud and Rainey: linear, maximal, idle-time-specific,
// inflation-specific and actual speedup).
type FactoredPoint struct {
	Threads   int     `json:"threads"`
	Maximal   float64 `json:"maximal"`
	IdleSpec  float64 `json:"idle_specific"`
	Inflation float64 `json:"inflation_specific"`
	Actual    float64 `json:"actual"`
}

// Factored computes the factored speedups of one emulator's results for
// one schedule: with T_s the serial time, T_P the predicted time, I_P
// the idle time of all P threads (the sections' idle time plus P−1
// threads idle during top-level serial code) and T_1 the 1-thread time
// of the same emulator and schedule (T_s when there is none):
// maximal P·T_s/T_1, idle-time-specific P·T_s/(T_1+I_P),
// inflation-specific P·T_s/(P·T_P−I_P), actual T_s/T_P. Results without
// busy and idle times (BusyNs zero in every section) are skipped; ok is
// false when none is left.
func Factored(results []emulate.Result) (pts []FactoredPoint, usedSerial bool, ok bool) {
	var t1 *emulate.Result
	for i, r := range results {
		if r.Threads == 1 && r.ParallelNs > 0 {
			t1 = &results[i]
		}
	}
	for _, r := range results {
		var busy float64
		for _, s := range r.Sections {
			busy += s.BusyNs
		}
		if busy <= 0 || r.ParallelNs <= 0 {
			continue
		}
		base := emulate.Result{Threads: 1, SerialNs: r.SerialNs, ParallelNs: r.SerialNs}
		if t1 != nil {
			base = *t1
		} else {
			usedSerial = true
		}
		f, err := emulate.Factor(r, base)
		if err != nil {
			continue
		}
		pts = append(pts, FactoredPoint{Threads: f.P, Maximal: f.Maximal, IdleSpec: f.IdleSpecific,
			Inflation: f.InflationSpecific, Actual: f.Actual})
	}
	slices.SortFunc(pts, func(a, b FactoredPoint) int { return a.Threads - b.Threads })
	return pts, usedSerial, len(pts) > 0
}

// FactoredPlot draws a factored speedup plot of pts as SVG.
func FactoredPlot(w io.Writer, title string, pts []FactoredPoint) error {
	if len(pts) == 0 {
		return fmt.Errorf("factored speedup plot: no points with idle times")
	}
	if title == "" {
		title = "Factored speedup"
	}
	p := newPlot(title, "threads (cores)", "speedup over serial (×)")
	g := newLegend()
	var lin, maxi, idle, infl, act plotter.XYs
	var threads []float64
	ymax := 1.0
	for _, pt := range pts {
		x := float64(pt.Threads)
		threads = append(threads, x)
		lin = append(lin, plotter.XY{X: x, Y: x})
		maxi = append(maxi, plotter.XY{X: x, Y: pt.Maximal})
		idle = append(idle, plotter.XY{X: x, Y: pt.IdleSpec})
		infl = append(infl, plotter.XY{X: x, Y: pt.Inflation})
		act = append(act, plotter.XY{X: x, Y: pt.Actual})
		ymax = max(ymax, x, pt.Maximal, pt.IdleSpec, pt.Inflation, pt.Actual)
	}
	curves := []struct {
		name   string
		pts    plotter.XYs
		c      color.Color
		width  float64
		dashes []vg.Length
	}{
		{"maximal (no idle, no inflation)", maxi, color.Black, 1.4, nil},
		{"idle-time-specific (no inflation)", idle, palette[0], 1.6, nil},
		{"inflation-specific (no idle)", infl, palette[1], 1.6, nil},
		{"actual (measured by syn)", act, palette[2], 2.2, nil},
		{"linear", lin, grey, 1, []vg.Length{vg.Points(6), vg.Points(3)}},
	}
	for _, cv := range curves {
		l, sc, err := plotter.NewLinePoints(cv.pts)
		if err != nil {
			return fmt.Errorf("factored speedup plot: %w", err)
		}
		l.Color, l.Width, l.Dashes = cv.c, vg.Points(cv.width), cv.dashes
		sc.Color, sc.Radius, sc.Shape = cv.c, vg.Points(2.5), draw.CircleGlyph{}
		p.Add(l, sc)
		g.add(cv.name, l, sc)
	}
	p.X.Max = slices.Max(threads) * 1.02
	p.Y.Max = math.Ceil(ymax*1.08*2) / 2
	p.X.Tick.Marker = threadTicks(threads)
	return render(w, p, g, 0, 0)
}

// BurdenCurve is one section's burden factors against threads, for
// BurdenPlot.
type BurdenCurve struct {
	Name    string
	Threads []int
	Beta    []float64
}

// BurdenPlot draws each section's burden factor β against threads as
// SVG: how much longer the section's computation takes with that many
// threads competing for memory.
func BurdenPlot(w io.Writer, curves []BurdenCurve) error {
	if len(curves) == 0 {
		return fmt.Errorf("burden factor plot: no sections")
	}
	p := newPlot("Burden factors", "threads (cores)", "β (×)")
	p.Y.Min = 1
	g := newLegend()
	var threads []float64
	ymax := 1.0
	for i, c := range curves {
		var pts plotter.XYs
		for k, t := range c.Threads {
			pts = append(pts, plotter.XY{X: float64(t), Y: c.Beta[k]})
			threads = append(threads, float64(t))
			ymax = max(ymax, c.Beta[k])
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("burden factor plot: %w", err)
		}
		col := palette[i%len(palette)]
		l.Color, l.Width = col, vg.Points(1.8)
		sc.Color, sc.Radius, sc.Shape = col, vg.Points(2.5), draw.CircleGlyph{}
		p.Add(l, sc)
		g.add(c.Name, l, sc)
	}
	slices.Sort(threads)
	threads = slices.Compact(threads)
	p.X.Max = threads[len(threads)-1] * 1.02
	p.Y.Max = math.Ceil(ymax*1.05*10) / 10
	p.X.Tick.Marker = threadTicks(threads)
	return render(w, p, g, 0, 0)
}
