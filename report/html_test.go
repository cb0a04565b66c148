package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/racereport"
	"github.com/parallel-prophet/prophet/tree"
)

const ms = 1_000_000

// sampleTree is a hand-built program: serial set-up, a triangular loop
// with a lock, and a small section.
func sampleTree() *tree.Tree {
	var rows []*tree.Node
	for i := int64(16); i >= 1; i-- {
		rows = append(rows, tree.Task("row", tree.U(i*ms), tree.L(1, ms/10)))
	}
	t := tree.New(
		tree.U(6*ms),
		tree.Sec("rows", rows...),
		tree.Sec("reduce", tree.U(ms), tree.Run(64, tree.Task("chunk", tree.U(ms/4)))),
	)
	t.Meta.Program = "./mandel -w 800 <h> 600"
	return t
}

// fakeResults returns made-up predictions: ff for two schedules, and syn
// with busy and idle times, with and without a memory model.
func fakeResults(serial float64) []emulate.Result {
	var rs []emulate.Result
	scheds := []par.Schedule{{Policy: par.Static}, {Policy: par.Dynamic, Chunk: 1}, {Policy: par.Spawn}}
	for si, s := range scheds {
		for _, emu := range []string{"ff", "syn"} {
			for _, mem := range []bool{false, true} {
				if emu == "ff" && mem {
					continue
				}
				for _, th := range []int{1, 2, 4, 8} {
					P := float64(th)
					eff := 1 / (1 + 0.08*float64(si+1)*(P-1))
					if mem {
						eff *= 1 / (1 + 0.03*(P-1))
					}
					par := serial / (P * eff)
					r := emulate.Result{Emulator: emu, Schedule: s, Threads: th, SerialNs: serial, ParallelNs: par,
						Speedup: serial / par, MemoryModel: mem}
					sec := emulate.Section{Name: "rows", Count: 1, SerialNs: serial * 0.8, ParallelNs: par * 0.8, Burden: 1}
					if mem {
						sec.Burden = 1 + 0.03*(P-1)
						r.MemoryModel = true
					}
					if emu == "syn" {
						sec.BusyNs = serial * 0.8 * (1 + 0.02*(P-1))
						sec.IdleNs = P*sec.ParallelNs - sec.BusyNs
					}
					r.Sections = []emulate.Section{sec}
					rs = append(rs, r)
				}
			}
		}
	}
	return rs
}

func samplePage(t *testing.T) Page {
	t.Helper()
	tr := sampleTree()
	a, err := analyze.Analyze(tr, analyze.Options{Overheads: machine.Default().Overheads})
	if err != nil {
		t.Fatal(err)
	}
	tot := tr.Totals()
	return Page{
		Program:   tr.Meta.Program,
		Profile:   "mandel.ppt",
		Generated: "2025-01-01 12:00",
		SerialNs:  float64(a.WorkNs),
		Memory:    "memory model on: burden factors from this machine's counters and profile",
		Notes:     []string{"syn predicts at most 8 threads on this machine"},
		Results:   fakeResults(float64(a.WorkNs)),
		Analysis:  a,
		Totals:    &tot,
	}
}

// checkXML parses s as XML and fails on any error.
func checkXML(t *testing.T, what string, s []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(s))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s does not parse as XML: %v", what, err)
		}
	}
}

func TestHTML(t *testing.T) {
	p := samplePage(t)
	var buf bytes.Buffer
	if err := HTML(&buf, p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if path := os.Getenv("PROPHET_REPORT_OUT"); path != "" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{
		"<!DOCTYPE html>", `id="summary"`, `id="predictions"`, `id="plot"`, `id="workspan"`,
		`id="regions"`, `id="burden"`, `id="factored"`, `id="totals"`,
		"Best predicted speedup", "task:row", "sec:reduce", "Memory model on", "β at 8",
		"Factored speedup (syn", "upper bound", "Stored nodes",
		"./mandel -w 800 &lt;h&gt; 600", // escaped
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Self-contained: nothing fetched.
	for _, bad := range []string{"<script", "<link", "@import", "src=\"http", "href=\"http", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("report contains %q: not self-contained", bad)
		}
	}
	// The speedup plot, the burden factors against threads, the
	// factored speedup plot.
	if n := strings.Count(out, "<svg"); n != 3 {
		t.Errorf("report has %d SVG pictures, want 3", n)
	}
	if !strings.Contains(out, "Burden factors</text>") && !strings.Contains(out, ">Burden factors<") {
		t.Errorf("report lacks the burden factor plot's title")
	}
	// Every inline SVG is well-formed XML.
	rest := out
	for {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		if j < 0 {
			t.Fatal("unterminated <svg>")
		}
		checkXML(t, "inline SVG", []byte(rest[i:i+j+len("</svg>")]))
		rest = rest[i+j:]
	}
	// Tags balance (a cheap well-formedness check of the page).
	for _, tag := range []string{"section", "table", "tr", "figure", "dl", "div", "main", "header"} {
		o := strings.Count(out, "<"+tag+">") + strings.Count(out, "<"+tag+" ")
		c := strings.Count(out, "</"+tag+">")
		if o != c {
			t.Errorf("<%s>: %d opened, %d closed", tag, o, c)
		}
	}
}

func TestHTMLPartial(t *testing.T) {
	tests := []struct {
		name string
		page Page
		want []string
	}{
		{"analysis only", Page{Analysis: func() *analyze.Analysis {
			a, _ := analyze.Analyze(sampleTree(), analyze.Options{})
			return a
		}()}, []string{"No predictions were made", "task:row", "<svg"}},
		{"ff only", Page{Results: fakeResults(1e9)[:4], Memory: "memory model off: no hardware counters"},
			[]string{"No emulator measured busy and idle time", "No burden factors other than 1", "No work/span analysis", "Memory model off"}},
		{"empty", Page{}, []string{"No predictions", "Nothing to plot"}},
		{"estimated", Page{Results: func() []emulate.Result {
			rs := fakeResults(1e9)[:2]
			rs[1].Sampled = true
			return rs
		}()}, []string{fmt.Sprintf("%.2f~", fakeResults(1e9)[1].Speedup)}},
		{"safety, races", Page{Safety: &racereport.Result{
			Races: []racereport.Race{{
				Kind:   "read/write",
				First:  racereport.Access{Op: "write", Site: racereport.Frame{Func: "main.f", File: "/p/main.go", Line: 25}, Section: "flags", Task: "set"},
				Second: racereport.Access{Op: "read", Site: racereport.Frame{Func: "main.g", File: "/p/main.go", Line: 26}, Main: true},
			}},
			Unchecked: []string{"legacy"},
		}}, []string{`id="safety"`, "1 apparent race", "main.go:25 main.f", "main.go:26", `task &#34;set&#34;`, "main goroutine", `section(s) &#34;legacy&#34;`, "no annotate.Lock"}},
		{"safety, none", Page{Safety: &racereport.Result{Tasks: 12}}, []string{"No apparent races between the 12 tasks"}},
		{"sweep", Page{Sweep: &Sweep{Emulator: "ff", Schedule: "static", Threads: 8, Base: 2, Changes: []string{"50% faster", "split 8 ways"},
			Rows: []SweepRow{{Region: "task:row", Speedups: []float64{3, math.NaN()}, Best: 3}, {Region: "serial", Speedups: []float64{2.2, 2.1}, Best: 2.2}}}},
			[]string{`id="sweep"`, "What to optimize first", "task:row", "3.00 (&#43;50%)", "2.20 (&#43;10%)", "width:100px", "width:20px", "at 8 threads (ff, static)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := HTML(&buf, tc.page); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("page lacks %q", w)
				}
			}
		})
	}
}

func TestSpeedupPlot(t *testing.T) {
	a, err := analyze.Analyze(sampleTree(), analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   PlotInput
		want []string
	}{
		{"results and bounds", PlotInput{Results: fakeResults(1e9), Bounds: a.Bounds}, []string{"threads (cores)", "speedup over serial", "ff static", "syn dynamic:1 +mem", "linear", "upper bound"}},
		{"bounds only", PlotInput{Bounds: a.Bounds, Title: "Bounds"}, []string{"Bounds", "worksharing estimate"}},
		{"one point", PlotInput{Results: fakeResults(1e9)[:1]}, []string{"ff static"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := SpeedupPlot(&buf, tc.in); err != nil {
				t.Fatal(err)
			}
			checkXML(t, "SVG", buf.Bytes())
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("plot lacks %q", w)
				}
			}
		})
	}
	if err := SpeedupPlot(io.Discard, PlotInput{}); err == nil {
		t.Error("no error for an empty plot")
	}
}

func TestFactored(t *testing.T) {
	// T_s = 100; P = 2: T_P = 60 with 10 of idle in the section and 10
	// of top-level serial code (so 10 more idle); T_1 = 105.
	sec := func(par, busy, idle float64) []emulate.Section {
		return []emulate.Section{{ParallelNs: par, BusyNs: busy, IdleNs: idle}}
	}
	rs := []emulate.Result{
		{Threads: 1, SerialNs: 100, ParallelNs: 105, Sections: sec(95, 95, 0)},
		{Threads: 2, SerialNs: 100, ParallelNs: 60, Sections: sec(50, 90, 10)},
		{Threads: 4, SerialNs: 100, ParallelNs: 50, Sections: nil}, // no idle time: skipped
	}
	pts, usedSerial, ok := Factored(rs)
	if !ok || usedSerial || len(pts) != 2 {
		t.Fatalf("Factored = %+v, %v, %v", pts, usedSerial, ok)
	}
	p := pts[1]
	// I_2 = 10 + 1·10 = 20.
	want := FactoredPoint{Threads: 2, Maximal: 200.0 / 105, IdleSpec: 200.0 / 125, Inflation: 200.0 / 100, Actual: 100.0 / 60}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"maximal", p.Maximal, want.Maximal}, {"idle", p.IdleSpec, want.IdleSpec}, {"inflation", p.Inflation, want.Inflation}, {"actual", p.Actual, want.Actual}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	var buf bytes.Buffer
	if err := FactoredPlot(&buf, "", pts); err != nil {
		t.Fatal(err)
	}
	checkXML(t, "factored SVG", buf.Bytes())
	if !strings.Contains(buf.String(), "inflation-specific") {
		t.Error("factored plot lacks its legend")
	}
	if _, _, ok := Factored(rs[2:]); ok {
		t.Error("Factored ok without idle times")
	}
}

// TestReportNeverMislabels renders pages that once were mislabelled: a
// factored plot from ff's own bookkeeping, "memory model applied" for
// compute inflation alone, and top-level sections of one name that
// nothing told apart.
func TestReportNeverMislabels(t *testing.T) {
	// ff rows that carry busy time, as ff's bookkeeping does.
	var ffOnly []emulate.Result
	for _, r := range fakeResults(1e9) {
		if r.Emulator == "ff" {
			r.Sections[0].BusyNs = r.Sections[0].SerialNs
			ffOnly = append(ffOnly, r)
		}
	}
	rows := func() *tree.Node { return tree.Sec("rows", tree.Task("r", tree.U(ms)), tree.Task("r", tree.U(2*ms))) }
	a, err := analyze.Analyze(tree.New(rows(), tree.U(ms), rows(), tree.Sec("other", tree.Task("o", tree.U(ms)))), analyze.Options{Threads: []int{1, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, Page{Results: ffOnly, Analysis: a, Memory: "memory model off: no hardware counters; compute inflation on"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"No emulator measured busy and idle time", "rows #1", "rows #2", ">other<", "worksharing estimate"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"actual (measured by syn)", "memory model applied", "other #"} {
		if strings.Contains(page, bad) {
			t.Errorf("page says %q", bad)
		}
	}
	// With syn rows the factored plot is drawn, from them.
	buf.Reset()
	if err := HTML(&buf, Page{Results: fakeResults(1e9)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "actual (measured by syn)") || !strings.Contains(buf.String(), "synthesizer's measurement (syn,") {
		t.Errorf("the factored plot is missing or not syn's")
	}
}
