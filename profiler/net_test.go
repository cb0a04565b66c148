package profiler

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parallel-prophet/prophet/tree"
)

// scripted returns a Profiler that is fed records by hand (no clock, no
// thread pinning): each event costs cost ticks of nsPerTick ns.
func scripted(cost, nsPerTick float64) *Profiler {
	p := &Profiler{
		nsPerTick: nsPerTick,
		costTicks: cost,
		costNs:    cost * nsPerTick,
		sums:      map[string]*sums{},
		b:         tree.NewBuilder(tree.BuildOptions{NoCompress: true}),
		stack:     []Annotation{{}},
	}
	p.setRate(nsPerTick, cost*nsPerTick)
	p.minU = max(1, int64(p.costNs/2))
	p.secGap = p.minU
	return p
}

// leafLens returns the lengths of n's leaves in tree order.
func leafLens(n *tree.Node) []int64 {
	if n.Kind.IsLeaf() {
		return []int64{n.Len}
	}
	var out []int64
	for _, c := range n.Children {
		out = append(out, leafLens(c)...)
	}
	return out
}

// feed buffers events whose intervals (in ticks) are given.
func (p *Profiler) feed(events ...record) {
	for _, e := range events {
		e.from, e.t = p.last, p.last+e.t
		p.last = e.t
		p.buf[p.n] = e
		p.n++
	}
}

func TestNetLengths(t *testing.T) {
	// 20 ticks per event at 0.5 ns a tick: 10 ns subtracted per interval.
	p := scripted(20, 0.5)
	p.feed(
		record{t: 2020, op: opSecBegin, name: "s"}, // root U 1000
		record{t: 25, op: opTaskBegin, name: "a"},  // 2.5 ns: carried (< 5)
		record{t: 420, op: opLockBegin, arg: 3},    // task U 200 + 2.5 carried
		record{t: 120, op: opLockEnd, arg: 3},      // L 50
		record{t: 10, op: opTaskEnd},               // negative: clamped to 0, carried
		record{t: 30, op: opTaskBegin, name: "b"},  // 5 ns: a Sec U node
		record{t: 221, op: opTaskEnd},              // 100.5
		record{t: 219, op: opSecEnd},               // 99.5 (with the carry: 100)
		record{t: 40, op: opStop},                  // root U 10
	)
	tr, err := p.finish()
	if err != nil {
		t.Fatal(err)
	}
	got := leafLens(tr.Root)
	want := []int64{1000, 202, 50, 5, 100, 100, 10}
	if len(got) != len(want) {
		t.Fatalf("leaf lengths %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("leaf lengths %v, want %v", got, want)
		}
	}
	// Measured: all intervals minus 9 event costs; work differs only by
	// the clamped negative interval (-5 ns) and rounding.
	raw := int64(2020 + 25 + 420 + 120 + 10 + 30 + 221 + 219 + 40)
	if wantM := int64(math.Round(float64(raw)*0.5 - 9*10)); tr.Meta.MeasuredNs != wantM {
		t.Errorf("MeasuredNs = %d, want %d", tr.Meta.MeasuredNs, wantM)
	}
	if w := tree.Work(tr.Root); w < tr.Meta.MeasuredNs+4 || w > tr.Meta.MeasuredNs+5 {
		t.Errorf("work %d, want MeasuredNs %d + 5 (the clamped interval) within rounding", w, tr.Meta.MeasuredNs)
	}
}

func TestSectionGapsJoinTasks(t *testing.T) {
	// 1 tick = 1 ns, no event cost; gaps under 100 ns between tasks join
	// the next task, so the section is one run of equal tasks.
	p := scripted(0, 1)
	p.secGap = 100
	p.feed(record{t: 50, op: opSecBegin, name: "s"}) // root U 50
	for range 10 {
		p.feed(
			record{t: 30, op: opTaskBegin, name: "t"}, // gap: carried
			record{t: 970, op: opTaskEnd},             // task U 1000
		)
	}
	p.feed(
		record{t: 30, op: opSecEnd}, // gap: carried
		record{t: 470, op: opStop},  // root U 470 + 30
	)
	tr, err := p.finish()
	if err != nil {
		t.Fatal(err)
	}
	if w := tree.Work(tr.Root); w != 50+10*1000+500 {
		t.Errorf("work %d, want %d", w, 50+10*1000+500)
	}
	var sec *tree.Node
	for _, c := range tr.Root.Children {
		if c.Kind == tree.KindSec {
			sec = c
		}
	}
	if sec == nil {
		t.Fatal("no section")
	}
	for _, c := range sec.Children {
		if c.Kind != tree.KindTask {
			t.Errorf("section holds a %s node; the gaps should have joined the tasks", c.Kind)
		}
	}
}

// TestNetFixedPoint checks net's fixed-point arithmetic, the 128-bit path
// for long intervals included, against the same computation in big
// integers, and against the floating-point formula within a nanosecond.
func TestNetFixedPoint(t *testing.T) {
	for _, tt := range []struct {
		name              string
		nsPerTick, costNs float64
	}{
		{"nanotime", 1, 27.3},
		{"tsc 3GHz", 1.0 / 3, 10.4},
		{"tsc 2.4GHz", 1 / 2.4, 9.7},
		{"no cost", 0.29, 0},
		{"slow ticks", 3.5, 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &Profiler{}
			p.setRate(tt.nsPerTick, tt.costNs)
			r := rand.New(rand.NewPCG(1, 2))
			frac := new(big.Int)
			mask := new(big.Int).SetInt64(1<<fracBits - 1)
			for i := range 20000 {
				var raw int64
				switch i % 4 {
				case 0:
					raw = r.Int64N(200) - 20 // around the event cost, and negative
				case 1:
					raw = r.Int64N(1 << 20)
				case 2:
					raw = p.rawMax - 5 + r.Int64N(10) // both sides of the fast path's limit
				case 3:
					raw = r.Int64N(math.MaxInt64 / 4) // the 128-bit path
				}
				got := p.net(raw)
				v := new(big.Int).Mul(big.NewInt(raw), big.NewInt(p.tickQ))
				v.Sub(v, big.NewInt(p.costQ)).Add(v, frac)
				want := int64(0)
				if v.Sign() < 0 {
					frac.SetInt64(0)
				} else {
					frac.And(v, mask)
					want = v.Rsh(v, fracBits).Int64()
				}
				if got != want || p.fracQ != frac.Int64() {
					t.Fatalf("net(%d) = %d carry %d, want %d carry %d", raw, got, p.fracQ, want, frac.Int64())
				}
				if f := float64(raw)*p.nsPerTick - p.costNs; raw < 1<<40 && f > 0 && math.Abs(float64(got)-f) > 1+1e-6*f {
					t.Fatalf("net(%d) = %d, float formula %.3f", raw, got, f)
				}
			}
		})
	}
}

// TestOverlapLossAtTaskEnds checks that the overlap loss comes off
// each task's last interval, at most all of it, and off the measured
// total with it.
func TestOverlapLossAtTaskEnds(t *testing.T) {
	cases := []struct {
		name   string
		lossNs int64
		want   []int64 // leaf lengths
		lost   int64
	}{
		// root U, task a (U, L, U), task b (U), root U
		{"none", 0, []int64{100, 200, 50, 40, 300, 100}, 0},
		{"30 ns", 30, []int64{100, 200, 50, 10, 270, 100}, 60},
		// a's last interval (40 ns) goes whole and is carried as 0
		{"more than a's end", 60, []int64{100, 200, 50, 240, 100}, 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := scripted(0, 1)
			p.lossNs = tc.lossNs
			p.feed(
				record{t: 100, op: opSecBegin, name: "s"},
				record{t: 0, op: opTaskBegin, name: "a"},
				record{t: 200, op: opLockBegin, arg: 1},
				record{t: 50, op: opLockEnd, arg: 1},
				record{t: 40, op: opTaskEnd},
				record{t: 0, op: opTaskBegin, name: "b"},
				record{t: 300, op: opTaskEnd},
				record{t: 0, op: opSecEnd},
				record{t: 100, op: opStop},
			)
			tr, err := p.finish()
			if err != nil {
				t.Fatal(err)
			}
			if got := leafLens(tr.Root); !slices.Equal(got, tc.want) {
				t.Errorf("leaf lengths %v, want %v", got, tc.want)
			}
			if want := 790 - tc.lost; tr.Meta.MeasuredNs != want {
				t.Errorf("MeasuredNs = %d, want %d", tr.Meta.MeasuredNs, want)
			}
			if got := tree.Work(tr.Root); got != tr.Meta.MeasuredNs {
				t.Errorf("work %d, want the measured %d", got, tr.Meta.MeasuredNs)
			}
		})
	}
}

// TestOverlapLossOption checks which loss Start takes: the one given,
// none where the event cost is given or a negative loss asks for none.
func TestOverlapLossOption(t *testing.T) {
	cases := []struct {
		name string
		opt  Options
		want float64
	}{
		{"given", Options{OverlapLossNs: 25}, 25},
		{"given with the event cost", Options{EventCostNs: 10, OverlapLossNs: 25}, 25},
		{"event cost given", Options{EventCostNs: 10}, 0},
		{"none asked for", Options{OverlapLossNs: -1}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.NoCounters, tc.opt.NoPin = true, true
			p, err := Start(tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			if got := p.OverlapLossNs(); got != tc.want {
				t.Errorf("OverlapLossNs() = %v, want %v", got, tc.want)
			}
		})
	}
}
