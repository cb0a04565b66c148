package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"

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
//
// Perfetto keeps only complete events that nest properly on their row:
// a slice that starts inside another and ends after it is dropped. A
// thread's slices that would partly overlap (an overhead charged across
// a slice's end, a wake-up inside an idle stretch) go to rows of their
// own under the thread's row, named "thread N (overlapping)", so that
// every slice is shown.
func WriteTrace(w io.Writer, spans []emulate.Span, meta map[string]any) error {
	threads := 0
	if v, ok := meta["threads"].(int); ok && v > 0 {
		threads = v
	}
	for _, s := range spans {
		if s.Thread < 0 {
			return fmt.Errorf("writing trace: span %q on negative thread %d", s.Name, s.Thread)
		}
		if math.IsNaN(s.StartNs) || math.IsInf(s.StartNs, 0) || math.IsNaN(s.EndNs) || math.IsInf(s.EndNs, 0) {
			return fmt.Errorf("writing trace: span %q has a non-finite time", s.Name)
		}
		threads = max(threads, s.Thread+1)
	}
	// Whole nanoseconds, as Perfetto keeps them: rows that nest before
	// rounding could overlap by a rounding error after it.
	rounded := make([]emulate.Span, len(spans))
	for i, s := range spans {
		s.StartNs = math.Round(s.StartNs)
		s.EndNs = max(math.Round(s.EndNs), s.StartNs)
		rounded[i] = s
	}
	spans = rounded
	row, extra := NestRows(spans)
	events := make([]traceEvent, 0, len(spans)+threads+len(extra)+1)
	events = append(events, traceEvent{Name: "process_name", Ph: "M", Pid: 1,
		Args: map[string]any{"name": "prophet emulation"}})
	for t := 0; t < threads; t++ {
		events = append(events, traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: t,
			Args: map[string]any{"name": fmt.Sprintf("thread %d", t)}})
	}
	// An extra row k of thread t has tid threads + k, and sorts right
	// after its thread's row.
	for k, t := range extra {
		tid := threads + k
		events = append(events,
			traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: tid,
				Args: map[string]any{"name": fmt.Sprintf("thread %d (overlapping)", t)}},
			traceEvent{Name: "thread_sort_index", Ph: "M", Pid: 1, Tid: tid,
				Args: map[string]any{"sort_index": t}})
	}
	for i, s := range spans {
		dur := (s.EndNs - s.StartNs) / 1e3
		name := s.Name
		if name == "" {
			name = s.Kind
		}
		tid := s.Thread
		if row[i] >= 0 {
			tid = threads + row[i]
		}
		ev := traceEvent{Name: name, Cat: s.Kind, Ph: "X", Ts: s.StartNs / 1e3, Dur: &dur, Pid: 1, Tid: tid}
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

// NestRows places spans on rows where slices nest properly (on a row,
// two slices are disjoint or one lies within the other): each span stays
// on its thread's row where it can, and otherwise goes to an extra row
// of its thread, the first where it nests. row[i] is -1 for span i on its
// thread's row, else the index of its extra row; extra[k] is the thread
// of extra row k.
func NestRows(spans []emulate.Span) (row []int, extra []int) {
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	// By thread, then start, the longer first, so that a slice comes
	// before the slices it contains.
	sort.SliceStable(order, func(a, b int) bool {
		x, y := spans[order[a]], spans[order[b]]
		if x.Thread != y.Thread {
			return x.Thread < y.Thread
		}
		if x.StartNs != y.StartNs {
			return x.StartNs < y.StartNs
		}
		return x.EndNs > y.EndNs
	})
	row = make([]int, len(spans))
	type lane struct {
		id   int       // -1 for the thread's own row, else an extra row
		open []float64 // end times of the slices still open, innermost last
	}
	var lanes []lane
	thread := -1
	for _, i := range order {
		s := spans[i]
		if s.Thread != thread {
			thread, lanes = s.Thread, []lane{{id: -1}}
		}
		placed := false
		for l := range lanes {
			ln := &lanes[l]
			for len(ln.open) > 0 && ln.open[len(ln.open)-1] <= s.StartNs {
				ln.open = ln.open[:len(ln.open)-1]
			}
			if len(ln.open) == 0 || ln.open[len(ln.open)-1] >= s.EndNs {
				ln.open = append(ln.open, max(s.EndNs, s.StartNs))
				row[i], placed = ln.id, true
				break
			}
		}
		if !placed {
			id := len(extra)
			extra = append(extra, s.Thread)
			lanes = append(lanes, lane{id: id, open: []float64{max(s.EndNs, s.StartNs)}})
			row[i] = id
		}
	}
	return row, extra
}
