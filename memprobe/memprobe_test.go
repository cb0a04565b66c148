package memprobe

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/tree"
)

func TestBanditCounts(t *testing.T) {
	tests := []struct {
		cores int
		want  []int
	}{
		{1, nil},
		{2, []int{1}},
		{4, []int{1, 3}},
		{12, []int{1, 3, 7, 11}},
		{16, []int{1, 3, 7, 15}},
	}
	for _, tc := range tests {
		if got := BanditCounts(tc.cores); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("BanditCounts(%d) = %v, want %v", tc.cores, got, tc.want)
		}
	}
}

// TestPlan follows the plan of a section run 20 times, each run 1 ms,
// with configurations (1 bandit at low intensity, 1 and 3 full), two
// probed runs each at most.
func TestPlan(t *testing.T) {
	low, one, three := Config{1, LowSpin}, Config{1, 0}, Config{3, 0}
	if got := Configs(4); !reflect.DeepEqual(got, []Config{low, one, three}) {
		t.Fatalf("Configs(4) = %v", got)
	}
	p := &Prober{opt: Options{MaxProbed: 2, MinRunNs: MinRunNs, Runs: map[string]int{"once": 1}},
		configs: Configs(4), state: map[string]*nameState{}, lastNs: map[string]int64{}}
	var got []string
	for idx := range 28 {
		c, timed := p.plan("s", idx)
		switch {
		case !timed:
			got = append(got, "-")
		case c.Bandits == 0:
			got = append(got, "0")
		default:
			got = append(got, fmt.Sprintf("%d/%d", c.Bandits, c.Spin))
			p.lastNs["s"] = 1e6
		}
		if timed {
			p.lastNs["s"] = 1e6
		}
	}
	// Runs 1, 5, 9, ... beside one, three, low, one, three, low in
	// turn; their neighbours alone; then nothing.
	want := strings.Fields("0 1/0 0 - 0 3/0 0 - 0 1/8 0 - 0 1/0 0 - 0 3/0 0 - 0 1/8 0 - - - - -")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan = %v\nwant   %v", got, want)
	}
	// Bandits not ready at run 1 of a section run five times: run 1
	// passes its turn to run 2, which is measured, run 3 its neighbour.
	ready := false
	p.isReady = func() bool { return ready }
	got = nil
	for idx := range 5 {
		c, timed := p.plan("few", idx)
		got = append(got, fmt.Sprintf("%v/%d", timed, c.Bandits))
		p.lastNs["few"] = 1e6
		ready = idx >= 1
	}
	if want := strings.Fields("true/0 true/0 true/1 true/0 true/0"); !reflect.DeepEqual(got, want) {
		t.Errorf("bandits late: plan = %v, want %v", got, want)
	}
	p.isReady = nil
	if c, timed := p.plan("once", 0); c != one || !timed {
		t.Errorf("a section run once: run 0 %v %v; want beside one full bandit", c, timed)
	}
	if _, timed := p.plan("once", 1); timed {
		t.Error("a section run once: run 1 timed")
	}
	// Short runs are not probed: run 1 follows a run of 100 µs.
	p.lastNs["short"] = 100_000
	p.plan("short", 0)
	p.lastNs["short"] = 100_000
	if c, timed := p.plan("short", 1); c.Bandits != 0 || !timed {
		t.Errorf("short run 1: %v %v, want alone", c, timed)
	}
}

// TestAnalyze feeds measured runs whose slowdown and share are computed
// by hand.
func TestAnalyze(t *testing.T) {
	const line = 64
	// MB/s from lines over 1 ms of CPU time: lines·64·1e3/1e6.
	counts := func(mbs float64) bandit.Counts {
		lines := int64(math.Round(mbs * 1e6 / (line * 1e3)))
		return bandit.Counts{Lines: lines, BusyNs: 1e6, WallNs: 1e6}
	}
	ref := func(n, spin int, mbs float64) RefSample {
		return RefSample{Streams: n, Spin: spin, Streamed: counts(mbs)}
	}
	raw := Raw{Cores: 4, LineSize: line,
		Refs: []RefSample{ref(1, 0, 10000), ref(2, 0, 8000), ref(3, 0, 6000), ref(4, 0, 5000), ref(1, 8, 2500)},
		Runs: []RunSample{
			{Name: "loop", Index: 0, WallNs: 1000},
			// Beside a low-intensity bandit (its load: 2500/10000).
			{Name: "loop", Index: 13, Bandits: 1, Spin: 8, WallNs: 1050, Streamed: counts(2400)},
			{Name: "loop", Index: 14, WallNs: 1000},
			{Name: "loop", Index: 1, Bandits: 1, WallNs: 1300, Streamed: counts(8500)},
			{Name: "loop", Index: 2, WallNs: 1200},
			{Name: "loop", Index: 4, WallNs: 1000},
			{Name: "loop", Index: 5, Bandits: 3, WallNs: 2000, Streamed: counts(5500)},
			// No neighbour alone: not used.
			{Name: "loop", Index: 9, Bandits: 1, WallNs: 9000, Streamed: counts(1000)},
			{Name: "once", Index: 0, Bandits: 1, WallNs: 55, Streamed: counts(10000)},
			// A section run once, beside a bandit for its first 500 ns.
			{Name: "half", Index: 0, Bandits: 1, WallNs: 1200, Streamed: bandit.Counts{Lines: 80, BusyNs: 500, WallNs: 500}},
			// Starved bandits: not used.
			{Name: "busy", Index: 0, WallNs: 100},
			{Name: "busy", Index: 1, Bandits: 1, WallNs: 200, Streamed: bandit.Counts{Lines: 10, BusyNs: 1, WallNs: 2}},
		}}
	tr := tree.New(tree.Sec("loop", tree.Task("t", tree.U(1000))), tree.Sec("once", tree.Task("t", tree.U(50))),
		tree.Sec("half", tree.Task("t", tree.U(1000))),
		tree.Sec("busy", tree.Task("t", tree.U(1))))
	got := Analyze(tr, raw)
	want := map[string]tree.ProbeSection{
		// 1300 against (1000+1200)/2 = 1100; share (10000−8500)/(10000−8000) = 0.75.
		// 2000 against 1000 (run 6 is missing); share (6000−5500)/(6000−5000) = 0.5.
		// 1050 against 1000 beside load 0.25.
		"loop": {Points: []tree.ProbePoint{{Bandits: 1, Spin: 8, Load: 0.25, Runs: 1, Slowdown: 1.05},
			{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1300.0 / 1100, Share: 0.75}, {Bandits: 3, Load: 3, Runs: 1, Slowdown: 2, Share: 0.5}}},
		// 500 ns beside the bandit did what took 1000 − (1200 − 500) =
		// 300 alone; its bandit streamed 10,240 MB/s, unslowed.
		"half": {Points: []tree.ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: 500.0 / 300, Share: 0}}},
		// Against the recording's 50 ns; the bandits were not slowed.
		"once": {Points: []tree.ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1.1, Share: 0}}},
	}
	if len(got.Sections) != len(want) {
		t.Fatalf("sections %v, want %v", got.Sections, want)
	}
	for name, w := range want {
		g := got.Sections[name]
		if len(g.Points) != len(w.Points) {
			t.Fatalf("%s: %+v, want %+v", name, g, w)
		}
		for i := range w.Points {
			a, b := g.Points[i], w.Points[i]
			if a.Bandits != b.Bandits || a.Spin != b.Spin || a.Runs != b.Runs || math.Abs(a.Load-b.Load) > 1e-3 ||
				math.Abs(a.Slowdown-b.Slowdown) > 1e-9 || math.Abs(a.Share-b.Share) > 1e-3 {
				t.Errorf("%s point %d: %+v, want %+v", name, i, a, b)
			}
		}
	}
	if !strings.Contains(got.Note, "starved beside busy") {
		t.Errorf("note %q, want the starved section named", got.Note)
	}
	if got.Cores != 4 || len(got.Curve) != 4 {
		t.Errorf("cores %d, curve %v", got.Cores, got.Curve)
	}
}

// TestAnalyzeMedian: from three runs beside the same bandits on, the
// slowdown is their median, so that one run lengthened by noise does not
// move it: 110, 500 and 120 against 100 alone read 1.2, where their sum
// would read 730/300 = 2.43. Two runs still pool their sums.
func TestAnalyzeMedian(t *testing.T) {
	full := bandit.Counts{Lines: 100, BusyNs: 1e6, WallNs: 1e6}
	raw := Raw{Cores: 2, LineSize: 64}
	for _, r := range []struct {
		name   string
		idx    int
		wall   int64
		beside bool
	}{
		{"three", 0, 100, false}, {"three", 1, 110, true}, {"three", 2, 100, false},
		{"three", 4, 100, false}, {"three", 5, 500, true}, {"three", 6, 100, false},
		{"three", 8, 100, false}, {"three", 9, 120, true}, {"three", 10, 100, false},
		{"two", 0, 100, false}, {"two", 1, 110, true}, {"two", 2, 100, false},
		{"two", 4, 100, false}, {"two", 5, 500, true}, {"two", 6, 100, false},
	} {
		s := RunSample{Name: r.name, Index: r.idx, WallNs: r.wall}
		if r.beside {
			s.Bandits, s.Streamed = 1, full
		}
		raw.Runs = append(raw.Runs, s)
	}
	tr := tree.New(tree.Sec("three", tree.Task("t", tree.U(100))), tree.Sec("two", tree.Task("t", tree.U(100))))
	got := Analyze(tr, raw)
	for name, want := range map[string]float64{"three": 1.2, "two": 610.0 / 200} {
		pts := got.Sections[name].Points
		if len(pts) != 1 || math.Abs(pts[0].Slowdown-want) > 1e-9 {
			t.Errorf("%s: %+v, want one point of slowdown %.4g", name, pts, want)
		}
	}
}

func TestParseCPUMax(t *testing.T) {
	tests := []struct {
		in    string
		cores float64
		ok    bool
	}{
		{"max 100000\n", 0, false},
		{"150000 100000\n", 1.5, true},
		{"50000 100000", 0.5, true},
		{"garbage", 0, false},
		{"-1 100000", 0, false},
	}
	for _, tc := range tests {
		c, ok := parseCPUMax(tc.in)
		if c != tc.cores || ok != tc.ok {
			t.Errorf("parseCPUMax(%q) = %g, %v; want %g, %v", tc.in, c, ok, tc.cores, tc.ok)
		}
	}
}

// TestProberSmoke runs a real probe around seven runs of a short
// section: it checks the runs it times (run 1 beside a full bandit, run
// 5 beside a low-intensity one, run 3 not timed) and the curve's
// shape, never a speed.
func TestProberSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	p := Start(Options{BufferBytes: 4 << 20, CurveTime: 2 * 1e6, MinRunNs: 1, Wait: true})
	busy := func() {
		x := 0
		for i := range 4_000_000 {
			x += i * i
		}
		_ = x
	}
	for range 7 {
		p.SecBegin("s")
		p.SecBegin("inner") // nested: ignored
		busy()
		p.SecEnd()
		p.SecEnd()
	}
	raw := p.Stop()
	if raw.Cores < 2 {
		if !strings.Contains(raw.Note, "no memory probe") || len(raw.Runs) != 0 {
			t.Errorf("one core: %+v", raw)
		}
		return
	}
	var idx []int
	for _, r := range raw.Runs {
		idx = append(idx, r.Index)
	}
	if !reflect.DeepEqual(idx, []int{0, 1, 2, 4, 5, 6}) || raw.Runs[1].Bandits != 1 || raw.Runs[1].Spin != 0 ||
		raw.Runs[4].Bandits != 1 || raw.Runs[4].Spin != LowSpin || raw.Runs[0].Bandits != 0 || raw.Runs[1].Streamed.Lines <= 0 {
		t.Errorf("runs %+v", raw.Runs)
	}
	for _, r := range raw.Runs {
		if r.Name != "s" || r.WallNs <= 0 {
			t.Errorf("run %+v", r)
		}
	}
	// Other work on the cores (a parallel go test) can starve the
	// bandits of their reference measurements: then the note says so.
	starved := strings.Contains(raw.Note, "starved")
	if len(raw.Curve) == 0 && !starved || len(raw.Curve) > 0 && raw.Curve[0].Streams != 1 && !starved {
		t.Errorf("curve %+v, note %q", raw.Curve, raw.Note)
	}
	for _, c := range raw.Curve {
		if c.Streams < 1 || c.MBs <= 0 {
			t.Errorf("curve point %+v", c)
		}
	}
}
