package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/parallel-prophet/prophet/emulate"
)

// traceEvent is one event of the Chrome trace-event format ("X" complete
// events and "M" metadata events).
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTrace writes spans (an emulated schedule) to w as Chrome
// trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// open: one row per logical thread (pid 1, tid = thread, named "thread
// 0", "thread 1", ...), one complete ("X") event per span with its kind
// as category, times in microseconds. meta (may be nil) is written as the
// trace's "otherData"; an int under the key "threads" makes rows for
// that many threads even when some have no span. The output is valid
// JSON even when spans is empty.
func WriteTrace(w io.Writer, spans []emulate.Span, meta map[string]any) error {
	threads := 0
	if v, ok := meta["threads"].(int); ok && v > 0 {
		threads = v
	}
	for _, s := range spans {
		if s.Thread < 0 {
			return fmt.Errorf("writing trace: span %q on negative thread %d", s.Name, s.Thread)
		}
		threads = max(threads, s.Thread+1)
	}
	events := make([]traceEvent, 0, len(spans)+threads+1)
	events = append(events, traceEvent{Name: "process_name", Ph: "M", Pid: 1,
		Args: map[string]any{"name": "prophet emulation"}})
	for t := 0; t < threads; t++ {
		events = append(events, traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: t,
			Args: map[string]any{"name": fmt.Sprintf("thread %d", t)}})
	}
	for _, s := range spans {
		if math.IsNaN(s.StartNs) || math.IsInf(s.StartNs, 0) || math.IsNaN(s.EndNs) || math.IsInf(s.EndNs, 0) {
			return fmt.Errorf("writing trace: span %q has a non-finite time", s.Name)
		}
		dur := max(s.EndNs-s.StartNs, 0) / 1e3
		name := s.Name
		if name == "" {
			name = s.Kind
		}
		ev := traceEvent{Name: name, Cat: s.Kind, Ph: "X", Ts: s.StartNs / 1e3, Dur: &dur, Pid: 1, Tid: s.Thread}
		if s.Section != "" {
			ev.Args = map[string]any{"section": s.Section}
		}
		events = append(events, ev)
	}
	doc := struct {
		TraceEvents     []traceEvent   `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData,omitempty"`
	}{events, "ns", meta}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}
