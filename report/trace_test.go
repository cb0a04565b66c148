package report

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/kernels"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
)

func TestNestRows(t *testing.T) {
	sp := func(th int, a, b float64) emulate.Span { return emulate.Span{Thread: th, StartNs: a, EndNs: b} }
	tests := []struct {
		name  string
		spans []emulate.Span
		row   []int
		extra []int
	}{
		{"disjoint", []emulate.Span{sp(0, 0, 10), sp(0, 10, 20)}, []int{-1, -1}, nil},
		{"nested", []emulate.Span{sp(0, 0, 10), sp(0, 2, 5), sp(0, 5, 10)}, []int{-1, -1, -1}, nil},
		{"partial overlap moves the later one", []emulate.Span{sp(0, 0, 10), sp(0, 8, 12)}, []int{-1, 0}, []int{0}},
		{"per thread", []emulate.Span{sp(1, 0, 10), sp(0, 5, 15), sp(1, 9, 11), sp(0, 14, 16)}, []int{-1, -1, 1, 0}, []int{0, 1}},
		{"an extra row is reused", []emulate.Span{sp(0, 0, 10), sp(0, 8, 12), sp(0, 20, 30), sp(0, 28, 32)}, []int{-1, 0, -1, 0}, []int{0}},
	}
	for _, tc := range tests {
		row, extra := NestRows(tc.spans)
		if !equalInts(row, tc.row) || !equalInts(extra, tc.extra) {
			t.Errorf("%s: rows %v, extra %v; want %v, %v", tc.name, row, extra, tc.row, tc.extra)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkNested fails the test on the first two complete events of one row
// of a trace written by WriteTrace that partly overlap: every row must
// nest for Perfetto to keep every slice.
func checkNested(t *testing.T, trace []byte) {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph  string   `json:"ph"`
			Tid int      `json:"tid"`
			Ts  float64  `json:"ts"`
			Dur *float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(trace, &doc); err != nil {
		t.Fatalf("not trace JSON: %v", err)
	}
	// In whole nanoseconds, as Perfetto reads them.
	type iv struct{ a, b float64 }
	rows := map[int][]iv{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			a := math.Round(e.Ts * 1e3)
			rows[e.Tid] = append(rows[e.Tid], iv{a, a + math.Round(*e.Dur*1e3)})
		}
	}
	for tid, ivs := range rows {
		sort.SliceStable(ivs, func(i, j int) bool {
			if ivs[i].a != ivs[j].a {
				return ivs[i].a < ivs[j].a
			}
			return ivs[i].b > ivs[j].b
		})
		var open []float64
		for _, v := range ivs {
			for len(open) > 0 && open[len(open)-1] <= v.a {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && open[len(open)-1] < v.b {
				t.Fatalf("row %d: a slice [%g, %g] partly overlaps one ending at %g", tid, v.a, v.b, open[len(open)-1])
			}
			open = append(open, v.b)
		}
	}
}

func TestWriteTraceNests(t *testing.T) {
	spans := []emulate.Span{
		{Thread: 0, StartNs: 0, EndNs: 10_000, Kind: emulate.SpanTask, Name: "I0"},
		{Thread: 0, StartNs: 9_000, EndNs: 12_000, Kind: emulate.SpanOverhead, Name: "join"},
		{Thread: 1, StartNs: 0, EndNs: 5_000, Kind: emulate.SpanIdle},
		{Thread: 1, StartNs: 4_000, EndNs: 6_000, Kind: emulate.SpanOverhead, Name: "wake"},
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, spans, map[string]any{"threads": 2}); err != nil {
		t.Fatal(err)
	}
	checkNested(t, buf.Bytes())
	if !bytes.Contains(buf.Bytes(), []byte("thread 0 (overlapping)")) || !bytes.Contains(buf.Bytes(), []byte("thread 1 (overlapping)")) {
		t.Errorf("no overlapping rows named:\n%s", buf.String())
	}
	if n := bytes.Count(buf.Bytes(), []byte(`"ph":"X"`)); n != len(spans) {
		t.Errorf("%d slices written, want all %d", n, len(spans))
	}
}

// TestTimelinesNestOnEveryExample: the ff timeline of every bundled
// kernel (at a small scale) under every schedule at 16 threads keeps
// every slice on rows that nest.
func TestTimelinesNestOnEveryExample(t *testing.T) {
	if testing.Short() {
		t.Skip("records every kernel")
	}
	schedules := []par.Schedule{{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 1},
		{Policy: par.Dynamic, Chunk: 1}, {Policy: par.Guided, Chunk: 1}, {Policy: par.Spawn}}
	for _, name := range kernels.Names() {
		k, err := kernels.New(name, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		k.Reset()
		tr, err := annotate.Record(k.Serial)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range schedules {
			e := ff.New()
			e.MaxSpans = 50_000
			spans, _, err := e.Trace(tr, 16, s, emulate.Options{Overheads: machine.Default().Overheads})
			if err != nil {
				t.Fatalf("%s, %s: %v", name, s, err)
			}
			var buf bytes.Buffer
			if err := WriteTrace(&buf, spans, map[string]any{"threads": 16}); err != nil {
				t.Fatal(err)
			}
			checkNested(t, buf.Bytes())
			if n := bytes.Count(buf.Bytes(), []byte(`"ph":"X"`)); n != len(spans) {
				t.Errorf("%s, %s: %d slices written of %d", name, s, n, len(spans))
			}
		}
	}
}
