package tree

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// compact renders a subtree on one line: U100, L1=50, T(name){...},
// S(name){...}, runs with ×N, nowait sections with "!".
func compact(n *Node) string {
	var b strings.Builder
	var rec func(n *Node)
	rec = func(n *Node) {
		switch n.Kind {
		case KindU:
			fmt.Fprintf(&b, "U%d", n.Len)
		case KindL:
			fmt.Fprintf(&b, "L%d=%d", n.Lock, n.Len)
		case KindTask:
			fmt.Fprintf(&b, "T(%s)", n.Name)
		case KindSec:
			fmt.Fprintf(&b, "S(%s)", n.Name)
			if n.Nowait {
				b.WriteString("!")
			}
		}
		if n.Reps() > 1 {
			fmt.Fprintf(&b, "×%d", n.Reps())
		}
		if !n.Kind.IsLeaf() {
			b.WriteString("{")
			for i, c := range n.Children {
				if i > 0 {
					b.WriteString(",")
				}
				rec(c)
			}
			b.WriteString("}")
		}
	}
	rec(n)
	return b.String()
}

// loop records one section of tasks whose bodies lens() gives.
func loop(b *Builder, name string, lens ...int64) {
	b.BeginSec(name)
	for _, l := range lens {
		b.BeginTask("t")
		b.U(l)
		b.EndTask()
	}
	b.EndSec(false, nil)
}

// lockLoop records one section "s" of tasks "t", each U, L on lock 1,
// U of the lengths given.
func lockLoop(b *Builder, tasks ...[3]int64) {
	b.BeginSec("s")
	for _, l := range tasks {
		b.BeginTask("t")
		b.U(l[0])
		b.L(1, l[1])
		b.U(l[2])
		b.EndTask()
	}
	b.EndSec(false, nil)
}

// compressionCases are TestBuilderCompression's cases: the events a
// program makes, the compressed tree they must give and its work.
var compressionCases = []struct {
	name   string
	opt    BuildOptions
	events func(b *Builder)
	want   string
	work   int64
}{
	{
		name:   "merge equal tasks",
		events: func(b *Builder) { loop(b, "s", 100, 100, 100) },
		want:   "{S(s){T(t)×3{U100}}}",
		work:   300,
	},
	{
		name:   "merge within tolerance keeps exact sum",
		events: func(b *Builder) { loop(b, "s", 100, 104, 97, 101) },
		want:   "{S(s){T(t)×4{U101}}}", // 402/4 = 100.5 rounds to 101
		work:   404,
	},
	{
		name:   "tolerance exceeded",
		events: func(b *Builder) { loop(b, "s", 100, 120) },
		want:   "{S(s){T(t){U100},T(t){U120}}}",
		work:   220,
	},
	{
		name: "slack merges tiny lengths",
		opt:  BuildOptions{SlackNs: 10},
		events: func(b *Builder) {
			loop(b, "s", 5, 12, 3)
		},
		want: "{S(s){T(t)×3{U7}}}", // 20/3
		work: 21,
	},
	{
		name: "slack merges lock tasks too by default",
		opt:  BuildOptions{Tolerance: 0.005, SlackNs: 30},
		events: func(b *Builder) {
			lockLoop(b, [3]int64{100, 40, 100}, [3]int64{120, 50, 80})
		},
		want: "{S(s){T(t)×2{U110,L1=45,U90}}}",
		work: 490,
	},
	{
		name: "lock slack keeps lock tasks apart",
		opt:  BuildOptions{Tolerance: 0.005, SlackNs: 30, LockSlackNs: -1},
		events: func(b *Builder) {
			lockLoop(b, [3]int64{100, 40, 100}, [3]int64{120, 50, 80})
		},
		want: "{S(s){T(t){U100,L1=40,U100},T(t){U120,L1=50,U80}}}",
		work: 490,
	},
	{
		name: "lock slack of its own",
		opt:  BuildOptions{Tolerance: 0.005, SlackNs: 30, LockSlackNs: 5},
		events: func(b *Builder) {
			lockLoop(b, [3]int64{100, 40, 100}, [3]int64{104, 42, 96}, [3]int64{120, 50, 80})
		},
		want: "{S(s){T(t)×2{U102,L1=41,U98},T(t){U120,L1=50,U80}}}",
		work: 732,
	},
	{
		name:   "lock slack leaves lock-free tasks alone",
		opt:    BuildOptions{Tolerance: 0.005, SlackNs: 30, LockSlackNs: -1},
		events: func(b *Builder) { loop(b, "s", 100, 120, 90) },
		want:   "{S(s){T(t)×3{U103}}}", // 310/3
		work:   309,
	},
	{
		name:   "no compression",
		opt:    BuildOptions{NoCompress: true},
		events: func(b *Builder) { loop(b, "s", 100, 100) },
		want:   "{S(s){T(t){U100},T(t){U100}}}",
		work:   200,
	},
	{
		name:   "exact tolerance",
		opt:    BuildOptions{Tolerance: -1},
		events: func(b *Builder) { loop(b, "s", 100, 100, 101) },
		want:   "{S(s){T(t)×2{U100},T(t){U101}}}",
		work:   301,
	},
	{
		name: "shape difference: name",
		events: func(b *Builder) {
			b.BeginSec("s")
			b.BeginTask("a")
			b.U(100)
			b.EndTask()
			b.BeginTask("b")
			b.U(100)
			b.EndTask()
			b.EndSec(false, nil)
		},
		want: "{S(s){T(a){U100},T(b){U100}}}",
		work: 200,
	},
	{
		name: "shape difference: lock id",
		events: func(b *Builder) {
			b.BeginSec("s")
			for _, id := range []int{1, 2} {
				b.BeginTask("t")
				b.L(id, 50)
				b.EndTask()
			}
			b.EndSec(false, nil)
		},
		want: "{S(s){T(t){L1=50},T(t){L2=50}}}",
		work: 100,
	},
	{
		name: "shape difference: children",
		events: func(b *Builder) {
			b.BeginSec("s")
			b.BeginTask("t")
			b.U(100)
			b.EndTask()
			b.BeginTask("t")
			b.U(50)
			b.L(1, 50)
			b.EndTask()
			b.EndSec(false, nil)
		},
		want: "{S(s){T(t){U100},T(t){U50,L1=50}}}",
		work: 200,
	},
	{
		name: "L runs",
		events: func(b *Builder) {
			b.BeginSec("s")
			b.BeginTask("t")
			b.U(10)
			for _, l := range []int64{50, 51, 49, 50} {
				b.L(3, l)
			}
			b.L(4, 50)
			b.U(10)
			b.EndTask()
			b.EndSec(false, nil)
		},
		want: "{S(s){T(t){U10,L3=50×4,L4=50,U10}}}",
		work: 270,
	},
	{
		name: "U joins U",
		events: func(b *Builder) {
			b.U(10)
			b.U(20)
			b.U(0) // ignored
			b.U(-5)
		},
		want: "{U30}",
		work: 30,
	},
	{
		name: "nested runs merge",
		events: func(b *Builder) {
			b.BeginSec("outer")
			for i := 0; i < 5; i++ {
				b.BeginTask("o")
				b.U(10)
				loop(b, "inner", 100, 101, 99)
				b.EndTask()
			}
			b.EndSec(false, nil)
		},
		want: "{S(outer){T(o)×5{U10,S(inner){T(t)×3{U100}}}}}",
		work: 5 * 310,
	},
	{
		name: "nested counts are shape",
		events: func(b *Builder) {
			b.BeginSec("outer")
			for _, k := range []int{3, 4} {
				b.BeginTask("o")
				lens := make([]int64, k)
				for i := range lens {
					lens[i] = 100
				}
				loop(b, "inner", lens...)
				b.EndTask()
			}
			b.EndSec(false, nil)
		},
		want: "{S(outer){T(o){S(inner){T(t)×3{U100}}},T(o){S(inner){T(t)×4{U100}}}}}",
		work: 700,
	},
	{
		name: "consecutive top-level sections merge",
		events: func(b *Builder) {
			loop(b, "s", 100, 100)
			loop(b, "s", 102, 102)
			b.U(7)
		},
		want: "{S(s)×2{T(t)×2{U101}},U7}",
		work: 411,
	},
	{
		name: "nowait is shape",
		events: func(b *Builder) {
			b.BeginSec("s")
			b.EndSec(true, nil)
			b.BeginSec("s")
			b.EndSec(false, nil)
		},
		want: "{S(s)!{},S(s){}}",
	},
	{
		name: "second chance folds a broken run back",
		events: func(b *Builder) {
			// 100×4 is a run; 110 breaks it (8 from the merged mean
			// 102); 100 joins 110 (5 from 105); 300 breaks that run,
			// whose mean 105 is within 5% of the merged 101.67: it
			// folds back into the first.
			loop(b, "s", 100, 100, 100, 100, 110, 100, 300)
		},
		want: "{S(s){T(t)×6{U102},T(t){U300}}}",
		work: 912, // 6·102 + 300; exact 910 up to rounding
	},
	{
		name: "sections at root with tasks in between stay apart",
		events: func(b *Builder) {
			loop(b, "a", 100)
			b.U(5)
			loop(b, "a", 100)
		},
		want: "{S(a){T(t){U100}},U5,S(a){T(t){U100}}}",
		work: 205,
	},
}

func TestBuilderCompression(t *testing.T) {
	tests := compressionCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(tc.opt)
			tc.events(b)
			tr, err := b.Finish(Meta{})
			if err != nil {
				t.Fatal(err)
			}
			if got := compact(tr.Root); got != tc.want {
				t.Errorf("tree\n got %s\nwant %s", got, tc.want)
			}
			if got := Work(tr.Root); got != tc.work {
				t.Errorf("Work = %d, want %d", got, tc.work)
			}
		})
	}
}

func TestBuilderDictionary(t *testing.T) {
	b := NewBuilder(BuildOptions{})
	// Time steps: two loops with serial code between them, so the
	// repeated sections are not consecutive and only the dictionary can
	// share them.
	const steps = 50
	var want int64
	for i := range steps {
		j := int64(i % 3) // lengths within 5% of each other
		loop(b, "a", 1000+j, 1000+j, 1000+j)
		loop(b, "b", 500, 500)
		b.U(300 + int64(i)) // distinct serial code
		want += 3*(1000+j) + 1000 + 300 + int64(i)
	}
	tr, err := b.Finish(Meta{})
	if err != nil {
		t.Fatal(err)
	}
	tot := tr.Totals()
	// Exact up to rounding each shared leaf's mean: half a nanosecond
	// per expanded leaf.
	if d := tot.SerialNs - want; 2*max(d, -d) > tot.ExpandedNodes {
		t.Errorf("SerialNs = %d, want %d up to rounding", tot.SerialNs, want)
	}
	if tot.TopSections != 2*steps || tot.Tasks != 5*steps {
		t.Errorf("TopSections, Tasks = %d, %d, want %d, %d", tot.TopSections, tot.Tasks, 2*steps, 5*steps)
	}
	ch := tr.Root.Children
	if len(ch) != 3*steps {
		t.Fatalf("root has %d children, want %d", len(ch), 3*steps)
	}
	for i := 3; i < len(ch); i++ {
		if ch[i].Kind == KindSec && ch[i] != ch[i%3] {
			t.Errorf("root child %d (%s) is not shared with child %d", i, compact(ch[i]), i%3)
		}
	}
	// 2 sections + 2 tasks + 2 leaves shared, ~steps U nodes, the root.
	if tot.Nodes > 10+steps {
		t.Errorf("Nodes = %d, want at most %d", tot.Nodes, 10+steps)
	}
	if err := Validate(tr); err != nil {
		t.Error(err)
	}
}

func TestBuilderCounters(t *testing.T) {
	b := NewBuilder(BuildOptions{})
	readings := []Counters{
		{Instructions: 1000, Cycles: 2000, LLCMisses: 10, TimeNs: 100, Runs: 1},
		{Instructions: 3000, Cycles: 4000, LLCMisses: 31, TimeNs: 300, Runs: 1},
		{Instructions: 2000, Cycles: 3000, LLCMisses: 20, TimeNs: 200},
	}
	for i := range readings {
		b.BeginSec("s")
		b.BeginTask("t")
		b.U(100)
		b.EndTask()
		c := readings[i]
		b.EndSec(false, &c)
		c.Instructions = 1 << 40 // the builder must have copied it
	}
	tr, err := b.Finish(Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(tr.Root); got != "{S(s)×3{T(t){U100}}}" {
		t.Fatalf("tree %s", got)
	}
	got := tr.Root.Children[0].Counters
	want := Counters{Instructions: 2000, Cycles: 3000, LLCMisses: 20, TimeNs: 200, Runs: 3}
	if got == nil || *got != want {
		t.Errorf("Counters = %+v, want %+v", got, want)
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name   string
		events func(b *Builder)
		want   string
	}{
		{"task at root", func(b *Builder) { b.BeginTask("x") }, `task "x" opened inside a Root`},
		{"sec in sec", func(b *Builder) { b.BeginSec("a"); b.BeginSec("b") }, `section "b" opened inside a Sec`},
		{"end task in sec", func(b *Builder) { b.BeginSec("a"); b.EndTask() }, "task end while a Sec is open"},
		{"end sec at root", func(b *Builder) { b.EndSec(false, nil) }, "section end while a Root is open"},
		{"left open", func(b *Builder) { b.BeginSec("a"); b.BeginTask("t") }, `Task "t" still open`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(BuildOptions{})
			tc.events(b)
			_, err := b.Finish(Meta{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Finish error %v, want %q", err, tc.want)
			}
		})
	}
	b := NewBuilder(BuildOptions{})
	if _, err := b.Finish(Meta{}); err != nil {
		t.Fatal(err)
	}
	b.U(5)
	if _, err := b.Finish(Meta{}); err == nil {
		t.Error("Finish after Finish: no error")
	}
}

// TestBuilderJitterExact feeds runs with random jitter and checks the total
// work against the exact sum (within rounding) and that runs stay few.
func TestBuilderJitterExact(t *testing.T) {
	for _, shape := range []string{"U", "ULU"} {
		t.Run(shape, func(t *testing.T) {
			b := NewBuilder(BuildOptions{})
			rng := newJitter(1)
			const n = 20000
			var exact int64
			b.BeginSec("s")
			for range n {
				b.BeginTask("t")
				if shape == "U" {
					exact += feedU(b, rng.next(1000))
				} else {
					exact += feedU(b, rng.next(600))
					exact += feedL(b, 1, rng.next(100))
					exact += feedU(b, rng.next(300))
				}
				b.EndTask()
			}
			b.EndSec(false, nil)
			tr, err := b.Finish(Meta{})
			if err != nil {
				t.Fatal(err)
			}
			tot := tr.Totals()
			leaves := int64(len(shape))
			if d := tot.SerialNs - exact; d < -n*leaves/2 || d > n*leaves/2 {
				t.Errorf("SerialNs = %d, exact %d: off by more than rounding", tot.SerialNs, exact)
			}
			if tot.Tasks != n {
				t.Errorf("Tasks = %d, want %d", tot.Tasks, n)
			}
			if tot.Nodes > 200 {
				t.Errorf("%d distinct nodes for %d jittered tasks", tot.Nodes, n)
			}
			t.Logf("%s: %d distinct nodes, error %d ns of %d", shape, tot.Nodes, tot.SerialNs-exact, exact)
		})
	}
}

func TestBuilderSteadyStateAllocs(t *testing.T) {
	b := NewBuilder(BuildOptions{})
	b.BeginSec("s")
	task := func() {
		b.BeginTask("t")
		b.U(1000)
		b.L(1, 100)
		b.U(500)
		b.EndTask()
	}
	task()
	task()
	if a := testing.AllocsPerRun(1000, task); a != 0 {
		t.Errorf("%v allocations per merged task, want 0", a)
	}
}

func TestFormatIDs(t *testing.T) {
	many := make([]int, 65536)
	for i := range many {
		many[i] = i
	}
	tests := []struct {
		ids  []int
		want string
	}{
		{[]int{1}, "1"},
		{[]int{1, 2, 7}, "1, 2, 7"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8}, "1, 2, 3, 4, 5, 6, 7, 8"},
		{many, "0, 1, 2, 3, 4, … 65531 more, 65536 in all from 0 to 65535"},
	}
	for _, tc := range tests {
		if got := FormatIDs(tc.ids); got != tc.want {
			t.Errorf("FormatIDs(%d ids) = %q, want %q", len(tc.ids), got, tc.want)
		}
	}
}

// TestBuilderSetup checks per-worker setup leaves: never joined with
// the computation next to them, merged only with setup leaves, and the
// flag never left on a node the free list hands out again.
func TestBuilderSetup(t *testing.T) {
	b := NewBuilder(BuildOptions{})
	b.BeginSec("s")
	b.Setup(50)
	for i := 0; i < 6; i++ {
		b.BeginTask("t")
		b.U(10)
		b.Setup(100)
		b.U(20)
		b.EndTask()
		b.BeginTask("u") // a different task between them: runs end
		b.U(30)
		b.EndTask()
	}
	b.EndSec(false, nil)
	tr, err := b.Finish(Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(tr); err != nil {
		t.Fatal(err)
	}
	sec := tr.Root.Children[0]
	if c := sec.Children[0]; !c.Setup || c.Len != 50 {
		t.Errorf("the section's first child %+v, want its setup of 50", c)
	}
	var setups, other int
	Walk(tr.Root, func(n *Node, _ int) bool {
		switch {
		case n.Setup && n.Len == 100:
			setups++
		case n.Setup && n.Len != 50:
			other++
		case n.Kind == KindU && n.Len != 10 && n.Len != 20 && n.Len != 30 && n.Len != 50:
			t.Errorf("a U of %d: setup and computation were joined", n.Len)
		}
		return true
	})
	if setups == 0 || other != 0 {
		t.Errorf("%d task setups of 100, %d other setups", setups, other)
	}
	if w := Work(tr.Root); w != 50+6*(10+100+20+30) {
		t.Errorf("work %d, want %d", w, 50+6*160)
	}
}

// TestBuilderIndexed checks that an indexed critical section stays
// apart from a plain one of the same lock and length, in a run of
// identical tasks (the pending task's fast path) and between the runs,
// and that both survive a round trip through the file format.
func TestBuilderIndexed(t *testing.T) {
	b := NewBuilder(BuildOptions{})
	b.BeginSec("s")
	for i := 0; i < 8; i++ {
		b.BeginTask("t")
		b.U(100)
		if i < 4 {
			b.IndexedL(1, 10)
		} else {
			b.L(1, 10)
		}
		b.U(20)
		b.EndTask()
	}
	b.EndSec(false, nil)
	tr, err := b.Finish(Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*Tree{tr, back} {
		var indexed, plain int64
		var count func(n *Node, mult int64)
		count = func(n *Node, mult int64) {
			mult *= n.Reps()
			switch {
			case n.Kind == KindL && n.Indexed:
				indexed += mult
			case n.Kind == KindL:
				plain += mult
			}
			for _, c := range n.Children {
				count(c, mult)
			}
		}
		count(tr.Root, 1)
		if indexed != 4 || plain != 4 {
			t.Errorf("%d indexed and %d plain critical sections, want 4 and 4", indexed, plain)
		}
	}
}
