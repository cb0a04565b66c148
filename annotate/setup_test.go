package annotate_test

import (
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/tree"
)

// TestSetup records per-worker setup inside tasks and before a loop:
// each becomes a setup U node of its own, never merged with the task's
// computation, and the tasks still form one run.
func TestSetup(t *testing.T) {
	sink := 0
	work := func(n int) {
		for i := range n * 1000 {
			sink += i
		}
	}
	tr, err := annotate.Record(func() {
		annotate.SecBegin("rows")
		annotate.Setup(func() { work(5) })
		for range 4 {
			annotate.Task("row", func() {
				annotate.Setup(func() { work(20) })
				work(10)
			})
		}
		annotate.SecEnd(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := tree.WriteText(&text, tr, tree.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	// Setup nodes: one directly in the section, one in every task; the
	// computation never merges into them.
	var sec *tree.Node
	for _, c := range tr.Root.Children {
		if c.Kind == tree.KindSec {
			sec = c
		}
	}
	secSetups, tasks, taskSetups := 0, int64(0), int64(0)
	for _, c := range sec.Children {
		switch {
		case c.Setup:
			secSetups++
		case c.Kind == tree.KindTask:
			tasks += c.Reps()
			for _, g := range c.Children {
				if g.Setup {
					taskSetups += c.Reps()
					if g.Len < 1000 {
						t.Errorf("a task's setup is %d ns, want the µs it took", g.Len)
					}
				}
			}
		}
	}
	if secSetups != 1 || tasks != 4 || taskSetups != 4 {
		t.Errorf("%d setups in the section, %d tasks with %d setups; want 1, 4, 4:\n%s", secSetups, tasks, taskSetups, text.String())
	}
	if !strings.Contains(text.String(), "setup (once per worker)") {
		t.Errorf("the text view does not show the setup:\n%s", text.String())
	}
	_ = sink
}

// TestSetupMisplaced checks that setup outside a section, or holding a
// lock, is refused with the annotation named.
func TestSetupMisplaced(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func()
		want string
	}{
		{"outside", func() { annotate.Setup(func() {}) }, "SetupBegin at event 1 outside any section"},
		{"lock inside", func() {
			annotate.SecBegin("s")
			annotate.Setup(func() { annotate.Lock(1, func() {}) })
			annotate.SecEnd(false)
		}, "inside Setup (opened at event 2): a setup holds computation only"},
	} {
		_, err := annotate.Record(tc.fn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
