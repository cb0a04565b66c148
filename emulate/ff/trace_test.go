package ff_test

// Tests of report.WriteTrace (report/trace.go belongs with the emulator's
// timeline; its tests live here, the rest of package report being
// another owner's).

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/report"
	"github.com/parallel-prophet/prophet/tree"
)

type traceDoc struct {
	TraceEvents []struct {
		Name string            `json:"name"`
		Cat  string            `json:"cat"`
		Ph   string            `json:"ph"`
		Ts   float64           `json:"ts"`
		Dur  float64           `json:"dur"`
		Pid  int               `json:"pid"`
		Tid  int               `json:"tid"`
		Args map[string]string `json:"args"`
	} `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

func TestWriteTrace(t *testing.T) {
	prog := tree.New(tree.Sec("loop",
		tree.Task("a", tree.U(1500), tree.L(1, 1000)),
		tree.Task("b", tree.U(1000), tree.L(1, 2000)),
	))
	spans, _, err := ff.New().Trace(prog, 4, par.Schedule{Policy: par.Static}, emulate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		spans     []emulate.Span
		meta      map[string]any
		wantX     int
		wantNames int // thread_name events
	}{
		{"empty", nil, nil, 0, 0},
		{"empty with threads", []emulate.Span{}, map[string]any{"threads": 3}, 0, 3},
		{"emulated", spans, map[string]any{"threads": 4, "schedule": "static"}, len(spans), 4},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := report.WriteTrace(&buf, tc.spans, tc.meta); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var doc traceDoc
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("%s: invalid JSON: %v\n%s", tc.name, err, buf.String())
		}
		var x, names int
		for _, ev := range doc.TraceEvents {
			if ev.Pid != 1 {
				t.Errorf("%s: event %+v not in pid 1", tc.name, ev)
			}
			switch {
			case ev.Ph == "X":
				x++
				if ev.Dur < 0 || ev.Tid < 0 || ev.Tid >= 4 {
					t.Errorf("%s: bad event %+v", tc.name, ev)
				}
			case ev.Ph == "M" && ev.Name == "thread_name":
				if want := "thread " + string(rune('0'+ev.Tid)); ev.Args["name"] != want {
					t.Errorf("%s: thread name %q, want %q", tc.name, ev.Args["name"], want)
				}
				names++
			}
		}
		if x != tc.wantX || names != tc.wantNames {
			t.Errorf("%s: %d complete and %d thread_name events, want %d and %d", tc.name, x, names, tc.wantX, tc.wantNames)
		}
	}
	// Times are in microseconds: the lock wait of "a" runs 1.5-3 µs.
	var buf bytes.Buffer
	if err := report.WriteTrace(&buf, spans, nil); err != nil {
		t.Fatal(err)
	}
	var doc traceDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range doc.TraceEvents {
		if ev.Cat == emulate.SpanLockWait && ev.Ts == 1.5 && ev.Dur == 1.5 && ev.Tid == 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no lock wait from 1.5 µs for 1.5 µs on thread 0 in %s", buf.String())
	}
	// Bad spans are errors, not panics or invalid output.
	if err := report.WriteTrace(&bytes.Buffer{}, []emulate.Span{{Thread: -1}}, nil); err == nil {
		t.Error("negative thread: no error")
	}
}
