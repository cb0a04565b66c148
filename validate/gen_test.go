package validate

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

func TestGenerateDeterministic(t *testing.T) {
	for _, test := range []string{Test1, Test2} {
		for i := 0; i < 20; i++ {
			seed := SampleSeed(7, test, i)
			a, err := Generate(test, seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Generate(test, seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s seed %d: two generations differ", test, seed)
			}
			c, err := Generate(test, seed+1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(a, c) {
				t.Fatalf("%s: seeds %d and %d give the same program", test, seed, seed+1)
			}
		}
	}
}

func TestGenerateRanges(t *testing.T) {
	for _, tc := range []struct {
		test  string
		scale float64
	}{
		{Test1, 1}, {Test2, 1}, {Test1, 0.1}, {Test2, 0.1},
	} {
		nested, inner := 0, 0
		for i := 0; i < 100; i++ {
			p, err := Generate(tc.test, SampleSeed(1, tc.test, i), tc.scale)
			if err != nil {
				t.Fatal(err)
			}
			w := float64(p.Work())
			// Work is drawn in [minWorkNs, maxWorkNs]·scale; rounding and
			// the minimum delay add a little.
			if lo, hi := 0.99*minWorkNs*tc.scale, 1.05*maxWorkNs*tc.scale+float64(4*minDelayNs*p.Tasks()); w < lo || w > hi {
				t.Errorf("%s scale %g sample %d (%s): work %.0f ns outside [%.0f, %.0f]", tc.test, tc.scale, i, p.Desc, w, lo, hi)
			}
			if p.Tasks() < 2 {
				t.Errorf("%s sample %d: only %d tasks", tc.test, i, p.Tasks())
			}
			loops := []*Loop{p.Loop}
			if tc.test == Test2 {
				loops = loops[:0]
				if p.Nested {
					nested++
				}
				for _, o := range p.Outer {
					if o.A < minDelayNs || o.B < minDelayNs {
						t.Errorf("%s sample %d: outer delays %d, %d below the minimum", tc.test, i, o.A, o.B)
					}
					if o.Inner != nil {
						loops = append(loops, o.Inner)
						inner++
					}
				}
			}
			for _, l := range loops {
				for _, it := range l.Iters {
					if it.D1 < minDelayNs || it.D2 < minDelayNs || it.D3 < minDelayNs || it.L1 < 0 || it.L2 < 0 {
						t.Fatalf("%s sample %d: bad iteration %+v", tc.test, i, it)
					}
				}
			}
		}
		if tc.test == Test2 && (nested == 0 || nested == 100 || inner == 0) {
			t.Errorf("%s: %d of 100 samples nested, %d inner loops: want a mix", tc.test, nested, inner)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		test  string
		scale float64
	}{
		{"test3", 1}, {"", 1}, {Test1, 0}, {Test1, -1}, {Test2, math.Inf(1)}, {Test2, math.NaN()},
	} {
		if _, err := Generate(tc.test, 1, tc.scale); err == nil {
			t.Errorf("Generate(%q, 1, %g) gave no error", tc.test, tc.scale)
		}
	}
}

func TestShape(t *testing.T) {
	g := gen{r: rand.New(rand.NewPCG(1, 2)), scale: 1}
	const n, ratio = 50, 8.0
	for _, tc := range []struct {
		s     Shape
		check func(w []float64) bool
	}{
		{Uniform, func(w []float64) bool {
			for _, v := range w {
				if v != w[0] {
					return false
				}
			}
			return true
		}},
		{Increasing, func(w []float64) bool {
			for i := 1; i < len(w); i++ {
				if w[i] < w[i-1] {
					return false
				}
			}
			return w[0] == 1 && w[len(w)-1] == ratio
		}},
		{Decreasing, func(w []float64) bool {
			for i := 1; i < len(w); i++ {
				if w[i] > w[i-1] {
					return false
				}
			}
			return w[0] == ratio && w[len(w)-1] == 1
		}},
		{Random, func(w []float64) bool {
			distinct := map[float64]bool{}
			for _, v := range w {
				if v < 1 || v > ratio {
					return false
				}
				distinct[v] = true
			}
			return len(distinct) > n/2
		}},
		{Mixed, func(w []float64) bool {
			for _, v := range w {
				if v < 1 || v > ratio*ratio {
					return false
				}
			}
			return true
		}},
	} {
		w := g.shape(tc.s, n, ratio)
		if len(w) != n || !tc.check(w) {
			t.Errorf("shape %s: %v", tc.s, w)
		}
	}
}

// countTree counts, with runs expanded, the sections, tasks and L nodes
// per lock id below n, and the deepest section nesting.
type treeCount struct {
	secs, tasks, maxDepth int64
	locks                 map[int]int64
}

func (c *treeCount) walk(n *tree.Node, reps int64, depth int) {
	reps *= n.Reps()
	switch n.Kind {
	case tree.KindSec:
		c.secs += reps
		depth++
		c.maxDepth = max(c.maxDepth, int64(depth))
	case tree.KindTask:
		c.tasks += reps
	case tree.KindL:
		c.locks[n.Lock] += reps
	}
	for _, ch := range n.Children {
		c.walk(ch, reps, depth)
	}
}

func TestSerialTree(t *testing.T) {
	for i := 0; i < 6; i++ {
		for _, test := range []string{Test1, Test2} {
			p, err := Generate(test, SampleSeed(3, test, i), 0.02)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := annotate.Record(p.Serial)
			if err != nil {
				t.Fatalf("%s sample %d: recording: %v", test, i, err)
			}
			c := treeCount{locks: map[int]int64{}}
			c.walk(tr.Root, 1, 0)
			// What the description says the tree must hold.
			want := treeCount{locks: map[int]int64{}}
			count := func(l *Loop) {
				want.secs++
				want.tasks += int64(len(l.Iters))
				for _, it := range l.Iters {
					if it.L1 > 0 {
						want.locks[lock1]++
					}
					if it.L2 > 0 {
						want.locks[lock2]++
					}
				}
			}
			want.maxDepth = 1
			if test == Test1 {
				count(p.Loop)
			} else {
				if p.Nested {
					want.secs++
					want.tasks += int64(len(p.Outer))
				}
				for _, o := range p.Outer {
					if o.Inner != nil {
						count(o.Inner)
						if p.Nested {
							want.maxDepth = 2
						}
					}
				}
			}
			if c.secs != want.secs || c.tasks != want.tasks || c.maxDepth != want.maxDepth || !reflect.DeepEqual(c.locks, want.locks) {
				t.Errorf("%s sample %d (%s): tree has %d sections (depth %d), %d tasks, locks %v; want %d (depth %d), %d, %v",
					test, i, p.Desc, c.secs, c.maxDepth, c.tasks, c.locks, want.secs, want.maxDepth, want.tasks, want.locks)
			}
		}
	}
}

func TestParallelCompletes(t *testing.T) {
	// Every schedule runs every generated shape to the end (no deadlock
	// with nested teams and shared locks), at 1 and 2 threads.
	scheds := []par.Schedule{{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 1}, {Policy: par.Dynamic, Chunk: 1}, {Policy: par.Guided, Chunk: 2}, {Policy: par.Spawn}}
	for i := 0; i < 4; i++ {
		for _, test := range []string{Test1, Test2} {
			p, err := Generate(test, SampleSeed(5, test, i), 0.01)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range scheds {
				for _, th := range []int{1, 2} {
					p.Parallel(th, s)
				}
			}
		}
	}
}

// TestGenerateFine checks the fine-grained loops' ranges: task counts,
// task lengths, and the critical section's share.
func TestGenerateFine(t *testing.T) {
	locked := 0
	for i := 0; i < 40; i++ {
		p, err := Generate(Fine, SampleSeed(5, Fine, i), 1)
		if err != nil {
			t.Fatal(err)
		}
		n := len(p.Loop.Iters)
		if n < fineMinTasks/2 || n > fineMaxTasks {
			t.Errorf("sample %d: %d tasks", i, n)
		}
		mean := float64(p.Work()) / float64(n)
		if mean < fineMinNs/2 || mean > 3*fineMaxNs {
			t.Errorf("sample %d (%s): tasks of %.0f ns on average", i, p.Desc, mean)
		}
		if w := float64(p.Work()); w < minWorkNs*0.9 || w > maxWorkNs*1.1 {
			t.Errorf("sample %d: work %.1f ms", i, w/1e6)
		}
		for _, it := range p.Loop.Iters {
			if it.L2 != 0 || it.D2 != 0 || it.L1 < 0 || (it.L1 > 0 && it.L1 < 20) {
				t.Fatalf("sample %d: iteration %+v", i, it)
			}
			if it.L1 > 0 {
				locked++
				break
			}
		}
	}
	if locked < 8 || locked > 32 {
		t.Errorf("%d of 40 samples take a lock, want about half", locked)
	}
}

// TestCriticalSectionsAddUp checks that the serial version of a sample,
// the same without annotations and the parallel version each add once
// into the guarded totals per critical section: under the real mutex,
// no increment is lost.
func TestCriticalSectionsAddUp(t *testing.T) {
	for _, test := range []string{Test1, Test2, Fine} {
		for i := 0; i < 12; i++ {
			p, err := Generate(test, SampleSeed(5, test, i), 0.05)
			if err != nil {
				t.Fatal(err)
			}
			var want [2]int64
			var iters []Iter
			if p.Loop != nil {
				iters = p.Loop.Iters
			}
			for _, o := range p.Outer {
				if o.Inner != nil {
					iters = append(iters, o.Inner.Iters...)
				}
			}
			for _, it := range iters {
				if it.L1 > 0 {
					want[0]++
				}
				if it.L2 > 0 {
					want[1]++
				}
			}
			p.Serial()
			p.SerialPlain()
			p.Parallel(2, par.Schedule{Policy: par.Dynamic, Chunk: 1})
			for k := range want {
				if got := p.sums[k].n; got != 3*want[k] {
					t.Errorf("%s sample %d, lock %d: total %d, want %d (three times %d critical sections)", test, i, k+1, got, 3*want[k], want[k])
				}
			}
		}
	}
}
