package profiler

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/tree"
)

// quick returns test options: no hardware, a short rate sample.
func quick() Options {
	return Options{NoCounters: true, RateSample: 1e6}
}

// calls is a scripted annotation stream.
type calls func(p *Profiler)

func TestAnnotationErrors(t *testing.T) {
	tests := []struct {
		name    string
		run     calls
		problem Problem
		want    string
	}{
		{"TaskEnd closes Sec", func(p *Profiler) {
			p.SecBegin("outer")
			p.TaskEnd()
		}, Mismatch, `annotation mismatch at event 2: TaskEnd closes Sec "outer" (opened at event 1)`},
		{"SecEnd closes Task", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskBegin("t")
			p.SecEnd(false)
		}, Mismatch, `annotation mismatch at event 3: SecEnd closes Task "t" (opened at event 2)`},
		{"LockEnd wrong id", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskBegin("t")
			p.LockBegin(1)
			p.LockEnd(2)
		}, Mismatch, `annotation mismatch at event 4: LockEnd(2) closes Lock 1 (opened at event 3)`},
		{"LockEnd closes Task", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskBegin("t")
			p.LockEnd(1)
		}, Mismatch, `annotation mismatch at event 3: LockEnd(1) closes Task "t" (opened at event 2)`},
		{"SecEnd at root", func(p *Profiler) {
			p.SecEnd(false)
		}, Mismatch, `annotation mismatch at event 1: SecEnd with no annotation open`},
		{"TaskEnd at root after a section", func(p *Profiler) {
			p.SecBegin("s")
			p.SecEnd(true)
			p.TaskEnd()
		}, Mismatch, `annotation mismatch at event 3: TaskEnd with no annotation open`},
		{"Task outside Sec", func(p *Profiler) {
			p.TaskBegin("t")
		}, Misplaced, `TaskBegin "t" at event 1 outside any section`},
		{"Task inside Task", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskBegin("a")
			p.TaskBegin("b")
		}, Misplaced, `TaskBegin "b" at event 3 inside Task "a" (opened at event 2): a task belongs directly to a section`},
		{"Sec inside Lock", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskBegin("t")
			p.LockBegin(1)
			p.SecBegin("inner")
		}, Misplaced, `SecBegin "inner" at event 4 inside Lock 1 (opened at event 3): a lock holds computation only`},
		{"Sec directly inside Sec", func(p *Profiler) {
			p.SecBegin("s")
			p.SecBegin("inner")
		}, Misplaced, `SecBegin "inner" at event 2 inside Sec "s" (opened at event 1): a section holds tasks`},
		{"LockBegin inside Lock", func(p *Profiler) {
			p.LockBegin(1)
			p.LockBegin(2)
		}, Misplaced, `LockBegin(2) at event 2 inside Lock 1 (opened at event 1): a lock holds computation only`},
		{"LockIndexedBegin inside Lock", func(p *Profiler) {
			p.LockIndexedBegin(1)
			p.LockIndexedBegin(2)
		}, Misplaced, `LockIndexedBegin(2) at event 2 inside Lock 1 (opened at event 1): a lock holds computation only`},
		{"Task inside Lock", func(p *Profiler) {
			p.SecBegin("s")
			p.LockBegin(7)
			p.TaskBegin("t")
		}, Misplaced, `TaskBegin "t" at event 3 inside Lock 7 (opened at event 2): a lock holds computation only`},
		{"Task open at Stop", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskBegin("x")
		}, Unclosed, `at Stop: Task "x" (opened at event 2) is still open`},
		{"Lock open at Stop", func(p *Profiler) {
			p.LockBegin(3)
		}, Unclosed, `at Stop: Lock 3 (opened at event 1) is still open`},
		{"first error wins", func(p *Profiler) {
			p.SecBegin("s")
			p.TaskEnd()
			p.SecEnd(false)
			p.SecEnd(false)
		}, Mismatch, `annotation mismatch at event 2: TaskEnd closes Sec "s" (opened at event 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(quick())
			if err != nil {
				t.Fatal(err)
			}
			tt.run(p)
			tr, err := p.Stop()
			if tr != nil {
				t.Errorf("got a tree despite the error")
			}
			var ae *AnnotationError
			if !errors.As(err, &ae) {
				t.Fatalf("Stop error = %v, want an *AnnotationError", err)
			}
			if ae.Problem != tt.problem {
				t.Errorf("Problem = %d, want %d", ae.Problem, tt.problem)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestErrorAfterManyEvents(t *testing.T) {
	// The error is found in a later batch; event numbers count across
	// batches.
	p, err := Start(quick())
	if err != nil {
		t.Fatal(err)
	}
	p.SecBegin("s")
	for range 1000 {
		p.TaskBegin("t")
		p.TaskEnd()
	}
	p.LockEnd(4)
	p.SecEnd(false)
	_, err = p.Stop()
	want := `annotation mismatch at event 2002: LockEnd(4) closes Sec "s" (opened at event 1)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestShape(t *testing.T) {
	p, err := Start(quick())
	if err != nil {
		t.Fatal(err)
	}
	busy(2000)
	p.SecBegin("outer")
	for i := range 3 {
		p.TaskBegin("row")
		busy(1000)
		switch i {
		case 1:
			p.LockBegin(5)
			busy(500)
			p.LockEnd(5)
		case 2:
			p.LockIndexedBegin(5)
			busy(500)
			p.LockEnd(5)
		}
		p.SecBegin("inner")
		p.TaskBegin("cell")
		busy(300)
		p.TaskEnd()
		p.SecEnd(true)
		p.TaskEnd()
	}
	p.SecEnd(false)
	busy(1000)
	tr, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Validate(tr); err != nil {
		t.Fatalf("invalid tree: %v", err)
	}
	kids := tr.Root.Children
	var secs []*tree.Node
	for _, c := range kids {
		if c.Kind == tree.KindSec {
			secs = append(secs, c)
		}
	}
	if len(secs) != 1 || secs[0].Name != "outer" || secs[0].Nowait {
		t.Fatalf("top-level sections = %v, want one Sec \"outer\" with a barrier", secs)
	}
	var tasks, locks, indexed, inner int64
	var walk func(n *tree.Node, reps int64)
	walk = func(n *tree.Node, reps int64) {
		reps *= n.Reps()
		switch n.Kind {
		case tree.KindTask:
			if n.Name == "row" {
				tasks += reps
			}
		case tree.KindL:
			if n.Lock != 5 {
				t.Errorf("L node with lock %d, want 5", n.Lock)
			}
			locks += reps
			if n.Indexed {
				indexed += reps
			}
		case tree.KindSec:
			if n.Name == "inner" {
				if !n.Nowait {
					t.Errorf("inner section lost nowait")
				}
				inner += reps
			}
		}
		for _, c := range n.Children {
			walk(c, reps)
		}
	}
	walk(tr.Root, 1)
	if tasks != 3 || locks != 2 || indexed != 1 || inner != 3 {
		t.Errorf("got %d row tasks, %d L nodes (%d indexed), %d inner sections; want 3, 2 (1), 3", tasks, locks, indexed, inner)
	}
	if tr.Meta.Clock == "" || tr.Meta.Recorded == "" || tr.Meta.EventCostNs <= 0 {
		t.Errorf("incomplete meta: %+v", tr.Meta)
	}
	if w := tree.Work(tr.Root); w <= 0 || w > tr.Meta.MeasuredNs+int64(20*tr.Meta.EventCostNs)+100 {
		t.Errorf("work %d ns, measured %d ns: work cannot exceed the measured time", w, tr.Meta.MeasuredNs)
	}
}

// busy busy-waits about n loop iterations.
func busy(n int) int {
	x := 0
	for i := range n {
		x += i ^ x>>3
	}
	sink = x
	return x
}

var sink int

func TestClocks(t *testing.T) {
	tests := []struct {
		clock   string
		wantErr bool
		prefix  string
	}{
		{ClockNanotime, false, "runtime.nanotime"},
		{ClockAuto, false, ""},
		{"sundial", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.clock, func(t *testing.T) {
			opt := quick()
			opt.Clock = tt.clock
			p, err := Start(opt)
			if tt.wantErr {
				if err == nil {
					p.Stop()
					t.Fatal("Start succeeded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p.SecBegin("s")
			p.SecEnd(false)
			tr, err := p.Stop()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(tr.Meta.Clock, tt.prefix) || tr.Meta.EventCostNs <= 0 {
				t.Errorf("Clock %q, EventCostNs %v; want prefix %q and a positive cost", tr.Meta.Clock, tr.Meta.EventCostNs, tt.prefix)
			}
			if _, err := p.Stop(); err == nil {
				t.Error("second Stop succeeded")
			}
		})
	}
}

// TestHold leaves a tool's 20 ms on the program's thread out of every
// interval, without counting it as the program's paused time; a Hold
// while held does nothing.
func TestHold(t *testing.T) {
	p, err := Start(quick())
	if err != nil {
		t.Fatal(err)
	}
	p.SecBegin("s")
	p.TaskBegin("t")
	p.TaskEnd()
	p.Hold()
	p.Hold()
	time.Sleep(20 * time.Millisecond)
	p.Release()
	p.Release()
	p.TaskBegin("t")
	p.TaskEnd()
	p.SecEnd(false)
	tr, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if w := time.Duration(tree.Work(tr.Root)); w > 10*time.Millisecond {
		t.Errorf("work %v: the held 20 ms were recorded", w)
	}
	if tr.Meta.PausedNs != 0 {
		t.Errorf("paused %d ns, want 0", tr.Meta.PausedNs)
	}
}
