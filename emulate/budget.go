package emulate

import (
	"errors"
	"math"
	"sync/atomic"
)

// ErrOverBudget matches (errors.Is) the error an emulation returns when
// the Budget of its Options ran out before it was done.
var ErrOverBudget = errors.New("over the emulation budget")

// ErrTooLarge matches (errors.Is) the error an emulation returns when it
// would hold more at once than its emulator keeps (ff: goroutines, most
// of them waiting for a lock, one for every task of a spawn loop whose
// spawner outruns the lock): a bound on memory, as the Budget is on time.
// RunSweep leaves such a row out with a note, as it does one over budget;
// a larger budget does not help.
var ErrTooLarge = errors.New("too large to emulate")

// LeftOut reports whether err is one RunSweep leaves its row out for
// (ErrOverBudget, ErrTooLarge), as should a caller predicting outside a
// sweep that leaves out what cannot be emulated.
func LeftOut(err error) bool {
	return errors.Is(err, ErrOverBudget) || errors.Is(err, ErrTooLarge)
}

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
//
// A budget made for the rows of sweeps (NewBudget with rows > 0) gives
// each prediction RunSweep makes an allowance of its own, which no
// other prediction can take, and a share of the rest, which they all
// draw from once past their own (and which what a finished prediction
// left of its allowance joins): so that the few predictions that would
// take the whole budget (a goroutine per task, emulated task by task)
// run out of it without starving the others, and RunSweep leaves them
// out with a note.
type Budget struct {
	limit int64
	// pool is what predictions draw from in common (the budget's own
	// counter, up to poolLimit), spent the steps taken in all.
	used      atomic.Int64
	poolLimit atomic.Int64
	spent     atomic.Int64
	// A sweep's budget: each of up to rows predictions has allowance
	// steps of its own; given counts the row budgets handed out.
	rows      int64
	allowance int64
	given     atomic.Int64
	// A row's budget: what is left of its own allowance, and the budget
	// it draws from past that.
	own    int64
	parent *Budget
}

// NewBudget returns a budget of steps steps, or nil (no limit) when
// steps is not positive. With rows > 0 it is meant for the predictions
// of sweeps that make rows of them in all: each has steps/(2·rows) of
// its own, and the other half is shared. With rows 0 every prediction
// draws from the whole budget.
func NewBudget(steps float64, rows int) *Budget {
	if !(steps > 0) {
		return nil
	}
	limit := int64(min(steps, math.MaxInt64/4))
	b := &Budget{limit: limit}
	b.poolLimit.Store(limit)
	if rows > 0 {
		b.rows = int64(rows)
		b.allowance = limit / (2 * b.rows)
		b.poolLimit.Store(limit - b.allowance*b.rows)
	}
	return b
}

// row returns the budget of one prediction of a sweep spending from b:
// its own allowance while b has rows left to give, and b's shared pool
// past it. A row budget is spent from one goroutine at a time.
func (b *Budget) row() *Budget {
	if b == nil || b.parent != nil || b.rows == 0 {
		return b
	}
	r := &Budget{limit: b.limit, parent: b}
	if b.given.Add(1) <= b.rows {
		r.own = b.allowance
	}
	return r
}

// Spend takes n steps from b and reports whether b still held them.
func (b *Budget) Spend(n int64) bool {
	if b == nil {
		return true
	}
	if p := b.parent; p != nil {
		p.spent.Add(n)
		if n <= b.own {
			b.own -= n
			return true
		}
		n -= b.own
		b.own = 0
		return p.used.Add(n) <= p.poolLimit.Load()
	}
	b.spent.Add(n)
	return b.used.Add(n) <= b.poolLimit.Load()
}

// release gives what is left of a row's own allowance, once its
// prediction is done, to the budget it draws from, for the rows still
// running to share.
func (b *Budget) release() {
	if b == nil || b.parent == nil || b.own == 0 {
		return
	}
	b.parent.poolLimit.Add(b.own)
	b.own = 0
}

// Limit returns b's size in steps (0 for no limit): for a row's budget,
// the sweep's.
func (b *Budget) Limit() float64 {
	if b == nil {
		return 0
	}
	return float64(b.limit)
}

// Used returns the steps spent from b so far: for a sweep's budget,
// its rows' steps too.
func (b *Budget) Used() float64 {
	if b == nil {
		return 0
	}
	return float64(b.spent.Load())
}
