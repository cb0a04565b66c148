package profiler

import "fmt"

// Kind is the kind of an annotation.
type Kind uint8

// The annotation kinds.
const (
	// Sec is a parallel section (SecBegin/SecEnd).
	Sec Kind = iota + 1
	// Task is a task of a section (TaskBegin/TaskEnd).
	Task
	// Lock is a critical section (LockBegin/LockEnd).
	Lock
	// Setup is per-worker setup (SetupBegin/SetupEnd).
	Setup
)

// String returns "Sec", "Task", "Lock" or "Setup".
func (k Kind) String() string {
	switch k {
	case Sec:
		return "Sec"
	case Task:
		return "Task"
	case Lock:
		return "Lock"
	case Setup:
		return "Setup"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Annotation is one opened annotation: its kind, its name (Sec, Task) or
// lock id (Lock), and the number of the event that opened it (events are
// numbered from 1 in the order of the annotation calls).
type Annotation struct {
	Kind  Kind
	Name  string
	ID    int
	Event int64
	// Indexed is set for a Lock begun by LockIndexedBegin.
	Indexed bool
}

// String names the annotation as the error messages do: `Sec "outer"`,
// `Task "t"`, `Lock 1`, `Setup`.
func (a Annotation) String() string {
	switch a.Kind {
	case Lock:
		return fmt.Sprintf("Lock %d", a.ID)
	case Setup:
		return "Setup"
	}
	return fmt.Sprintf("%s %q", a.Kind, a.Name)
}

// Problem classifies an AnnotationError.
type Problem uint8

// The problems an annotation stream can have.
const (
	// Mismatch: an END does not close the innermost open annotation
	// (another kind, another lock id, or nothing is open).
	Mismatch Problem = iota + 1
	// Misplaced: a BEGIN where its kind may not stand (a Task outside a
	// Sec, anything inside a Lock, a Sec directly inside a Sec).
	Misplaced
	// Unclosed: an annotation still open at Stop.
	Unclosed
)

// AnnotationError is an annotation stream that does not nest. It names
// the offending call and the open annotation it conflicts with.
type AnnotationError struct {
	Problem Problem
	// Call is the offending call as written: `TaskEnd`, `LockEnd(2)`,
	// `SecBegin "inner"`; empty for Unclosed.
	Call string
	// Event is the offending call's event number (0 for Unclosed).
	Event int64
	// Open is the open annotation the call conflicts with (the one left
	// open, for Unclosed); nil when nothing was open.
	Open *Annotation
	// Reason adds why a Misplaced call may not stand there.
	Reason string
}

// Error returns one sentence naming both annotations, for example
// `annotation mismatch at event 17: TaskEnd closes Sec "outer" (opened at
// event 12)`.
func (e *AnnotationError) Error() string {
	switch e.Problem {
	case Mismatch:
		if e.Open == nil {
			return fmt.Sprintf("annotation mismatch at event %d: %s with no annotation open", e.Event, e.Call)
		}
		return fmt.Sprintf("annotation mismatch at event %d: %s closes %s (opened at event %d)",
			e.Event, e.Call, e.Open, e.Open.Event)
	case Misplaced:
		if e.Open == nil {
			return fmt.Sprintf("%s at event %d %s", e.Call, e.Event, e.Reason)
		}
		return fmt.Sprintf("%s at event %d inside %s (opened at event %d): %s",
			e.Call, e.Event, e.Open, e.Open.Event, e.Reason)
	case Unclosed:
		if e.Open != nil {
			return fmt.Sprintf("at Stop: %s (opened at event %d) is still open", e.Open, e.Open.Event)
		}
	}
	return "annotation error"
}
