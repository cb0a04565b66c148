package emulate

// Span is one slice of an emulated schedule: what one logical thread (a
// core of the emulated machine) did from StartNs to EndNs. Emulators that
// can record their schedule (emulate/ff) return spans; report.WriteTrace
// turns them into a trace-event timeline.
type Span struct {
	// Thread is the logical thread (core) index, 0 to threads-1.
	Thread int `json:"thread"`
	// StartNs and EndNs bound the slice, in nanoseconds from the start of
	// the emulated program.
	StartNs float64 `json:"start_ns"`
	EndNs   float64 `json:"end_ns"`
	// Kind says what the thread did; one of the Span* constants.
	Kind string `json:"kind"`
	// Name names the task, lock or overhead ("I3", "lock 2", "fork").
	Name string `json:"name"`
	// Section is the innermost section the slice belongs to.
	Section string `json:"section,omitempty"`
}

// The kinds of Span.
const (
	// SpanTask is computation of a task outside any lock (U).
	SpanTask = "task"
	// SpanLock is computation holding a lock (L).
	SpanLock = "lock"
	// SpanLockWait is a thread whose goroutine waits for a lock.
	SpanLockWait = "lockwait"
	// SpanSerial is computation outside any task: top-level serial code
	// or a section's own code run by the thread that entered it.
	SpanSerial = "serial"
	// SpanOverhead is a runtime cost: fork, join, chunk dispatch, spawn,
	// lock acquire and hand-off, wake-up latency.
	SpanOverhead = "overhead"
	// SpanIdle is a thread with nothing to run (at a barrier, out of
	// work).
	SpanIdle = "idle"
)
