package emulate

import (
	"errors"
	"math"
	"sync/atomic"
)

// ErrOverBudget matches (errors.Is) the error an emulation returns when
// the Budget of its Options ran out before it was done.
var ErrOverBudget = errors.New("over the emulation budget")

// A Budget bounds the work of a set of predictions in all: the steps
// their emulations take (an event, or a tree node walked past), which
// any number of emulations, on any number of goroutines, spend from it
// at once. It is checked as the emulations go, not estimated before:
// how many steps a prediction takes depends on which runs of tasks the
// emulator can take in closed form, which only the emulation finds out
// (a regular loop of 10^8 tasks takes a few hundred thousand steps under
// static and tens of millions under spawn). An emulation that finds the
// budget spent stops with an error matching ErrOverBudget. A nil
// *Budget never runs out.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// NewBudget returns a budget of steps steps, or nil (no limit) when
// steps is not positive.
func NewBudget(steps float64) *Budget {
	if !(steps > 0) {
		return nil
	}
	return &Budget{limit: int64(min(steps, math.MaxInt64/2))}
}

// Spend takes n steps from b and reports whether b still held them.
func (b *Budget) Spend(n int64) bool {
	if b == nil {
		return true
	}
	return b.used.Add(n) <= b.limit
}

// Limit returns b's size in steps (0 for no limit).
func (b *Budget) Limit() float64 {
	if b == nil {
		return 0
	}
	return float64(b.limit)
}

// Used returns the steps spent from b so far.
func (b *Budget) Used() float64 {
	if b == nil {
		return 0
	}
	return float64(b.used.Load())
}
