package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/tree"
)

// TestNestedSections counts the section instances below each top-level
// section, runs written out and the top-level sections' own runs not.
func TestNestedSections(t *testing.T) {
	leaf := tree.Task("l", tree.U(1))
	inner := tree.Sec("inner", tree.Run(7, leaf))
	mid := tree.Sec("mid", tree.Run(5, tree.Task("m", inner, inner)))
	tests := []struct {
		name string
		t    *tree.Tree
		want float64
	}{
		{"flat", tree.New(tree.Sec("s", tree.Run(1000, leaf))), 0},
		// 3 tasks, each holding mid (1) and its 5 tasks' 2 inner each (10).
		{"nested", tree.New(tree.Sec("top", tree.Run(3, tree.Task("t", mid)))), 3 * (1 + 5*2)},
		// A top-level section run 4 times is emulated once.
		{"repeated top", tree.New(tree.U(5), tree.Run(4, tree.Sec("top", tree.Task("t", inner))), tree.Sec("other", leaf)), 1},
	}
	for _, tc := range tests {
		if got := nestedSections(tc.t); got != tc.want {
			t.Errorf("%s: %v nested sections, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOverBudgetHint: a prediction that ran out of its budget is told
// what to do; other errors pass unchanged.
func TestOverBudgetHint(t *testing.T) {
	over := fmt.Errorf("section %q: %w", "loop", emulate.ErrOverBudget)
	msg := overBudget(over).Error()
	for _, want := range []string{`section "loop"`, "budget", "raise --budget"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	large := fmt.Errorf("section %q: %w: more than 1048576 goroutines at once", "loop", emulate.ErrTooLarge)
	msg = overBudget(large).Error()
	for _, want := range []string{`section "loop"`, "too large", "another schedule"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "--budget") {
		t.Errorf("message %q sends a prediction too large to emulate to --budget", msg)
	}
	other := fmt.Errorf("some other failure")
	if got := overBudget(other); got != other {
		t.Errorf("another error came back as %v", got)
	}
}
