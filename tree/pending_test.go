package tree

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// event is one Builder call, for streams fed to several builders.
type event struct {
	op   byte // s: BeginSec, S: EndSec, t: BeginTask, T: EndTask, u: U, l: L
	name string
	ns   int64
	lock int
}

// feed applies the events to b and returns Finish's tree written in the
// file format and in text (or Finish's error) and the depth before it.
func feed(b *Builder, evs []event) (out string, depth int) {
	for _, e := range evs {
		switch e.op {
		case 's':
			b.BeginSec(e.name)
		case 'S':
			var c *Counters
			if e.lock > 0 {
				c = &Counters{Instructions: uint64(e.ns), Cycles: 7, TimeNs: e.ns, Runs: 1}
			}
			b.EndSec(e.ns%3 == 0, c)
		case 't':
			b.BeginTask(e.name)
		case 'T':
			b.EndTask()
		case 'u':
			b.U(e.ns)
		case 'l':
			b.L(e.lock, e.ns)
		}
	}
	depth = b.Depth()
	t, err := b.Finish(Meta{Program: "p"})
	if err != nil {
		return "error: " + err.Error(), depth
	}
	var w bytes.Buffer
	if err := Write(&w, t); err != nil {
		return "write error: " + err.Error(), depth
	}
	if err := WriteText(&w, t, TextOptions{}); err != nil {
		return "text error: " + err.Error(), depth
	}
	return w.String(), depth
}

// stream makes a random event stream: sections of tasks of a few shapes
// (empty, U, U L U, L L U, nested sections, random leaves), lengths
// jittered by up to jit, now and then a gap, a name change, a shape
// change or (bad) a call that does not nest.
func stream(r *rand.Rand, jit float64, bad bool) []event {
	var evs []event
	names := []string{"a", "b"}
	leaf := func(base int64) int64 {
		if r.IntN(25) == 0 {
			return int64(r.IntN(3)) - 1 // zero and negative lengths
		}
		return int64(float64(base) * (1 + jit*(2*r.Float64()-1)))
	}
	var sec func(depth int)
	body := func(shape, depth int) {
		switch shape {
		case 1:
			evs = append(evs, event{op: 'u', ns: leaf(1000)})
		case 2:
			evs = append(evs, event{op: 'u', ns: leaf(600)}, event{op: 'l', lock: 1, ns: leaf(100)}, event{op: 'u', ns: leaf(300)})
		case 3:
			evs = append(evs, event{op: 'l', lock: 1, ns: leaf(100)}, event{op: 'l', lock: 1, ns: leaf(100)}, event{op: 'u', ns: leaf(50)})
		case 4:
			evs = append(evs, event{op: 'u', ns: leaf(100)}, event{op: 'u', ns: leaf(100)}, event{op: 'l', lock: 2, ns: leaf(70)}, event{op: 'l', lock: 1, ns: leaf(70)})
		case 5:
			if depth < 2 {
				evs = append(evs, event{op: 'u', ns: leaf(200)})
				sec(depth + 1)
			}
		case 6:
			for range r.IntN(4) {
				evs = append(evs, event{op: "ul"[r.IntN(2)], lock: r.IntN(3), ns: leaf(int64(50 + r.IntN(500)))})
			}
		}
	}
	sec = func(depth int) {
		evs = append(evs, event{op: 's', name: names[r.IntN(2)]})
		shape, name := r.IntN(7), names[r.IntN(2)]
		for range r.IntN(50 >> (2 * depth)) {
			if r.IntN(10) == 0 {
				shape = r.IntN(7)
			}
			if r.IntN(15) == 0 {
				name = names[r.IntN(2)]
			}
			if r.IntN(12) == 0 {
				evs = append(evs, event{op: 'u', ns: leaf(300)})
			}
			evs = append(evs, event{op: 't', name: name})
			body(shape, depth)
			if bad && r.IntN(100) == 0 {
				evs = append(evs, event{op: "tSTs"[r.IntN(4)], name: "x"})
			}
			evs = append(evs, event{op: 'T'})
		}
		evs = append(evs, event{op: 'S', ns: int64(r.IntN(1000)), lock: r.IntN(2)})
	}
	for range 1 + r.IntN(10) {
		if r.IntN(4) == 0 {
			evs = append(evs, event{op: 'u', ns: leaf(500)})
		}
		sec(0)
	}
	if bad && r.IntN(2) == 0 {
		evs = evs[:r.IntN(len(evs))] // something left open
	}
	return evs
}

// TestPendingTasksSameTree feeds random streams to a Builder with pending
// tasks and to one that takes the general path for every task: the trees
// (file bytes and text), errors and depths must be identical.
func TestPendingTasksSameTree(t *testing.T) {
	opts := []struct {
		name string
		opt  BuildOptions
	}{
		{"default", BuildOptions{}},
		{"slack", BuildOptions{Tolerance: 0.05, SlackNs: 50}},
		{"exact", BuildOptions{Tolerance: -1, SlackNs: 10}},
		{"nocompress", BuildOptions{NoCompress: true}},
	}
	seeds := uint64(200)
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		evs := stream(r, []float64{0, 0.01, 0.04, 0.06, 0.3}[seed%5], seed%4 == 0)
		for _, o := range opts {
			fast := NewBuilder(o.opt)
			gen := NewBuilder(o.opt)
			gen.general = true
			got, gd := feed(fast, evs)
			want, wd := feed(gen, evs)
			if got != want || gd != wd {
				t.Fatalf("seed %d, %s: pending tasks change the result (depth %d, want %d):\n%s\nwant:\n%s",
					seed, o.name, gd, wd, got, want)
			}
		}
	}
}

// TestFitsOne checks the division-free test for one instance against the
// rule's formula, on random lengths and on lengths right at the bound.
func TestFitsOne(t *testing.T) {
	for _, opt := range []BuildOptions{
		{}, {Tolerance: 0.05, SlackNs: 50}, {Tolerance: 0.1, SlackNs: 3}, {Tolerance: -1, SlackNs: 10}, {Tolerance: -1},
	} {
		b := NewBuilder(opt)
		r := rand.New(rand.NewPCG(3, 4))
		for i := range 200000 {
			inst := 1 + r.Int64N([]int64{1, 3, 100, 1e6}[i%4])
			mean := r.Int64N([]int64{10, 1000, 1e6, 1e10}[i/4%4])
			d := &Node{Kind: KindU, inst: inst, sum: inst*mean + r.Int64N(inst)}
			var x int64
			switch i % 3 {
			case 0: // anywhere near the mean
				x = int64(float64(mean) * (0.8 + 0.4*r.Float64()))
			default: // at the bound D = lim·N, or one off
				n := float64(inst)
				limN := b.slack * (n + 1)
				tol := 0.0
				if !b.exact {
					tol = b.tol
				}
				// solve |sum − n·x| = slack·N + tol·(sum+x) for x above or below the mean
				s := float64(d.sum)
				if i%3 == 1 {
					x = int64(math.Round((s*(1+tol) + limN) / (n - tol)))
				} else {
					x = int64(math.Round((s*(1-tol) - limN) / (n + tol)))
				}
				x += r.Int64N(3) - 1
			}
			if x < 0 {
				continue
			}
			if got, want := b.fitsOne(d, x, b.slack), b.fitsMeans(d, x, 1, b.slack); got != want {
				t.Fatalf("%+v: fitsOne(sum %d, inst %d, x %d) = %v, formula %v", opt, d.sum, d.inst, x, got, want)
			}
		}
	}
}
