package memprobe

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

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
	p := &Prober{opt: Options{MaxProbed: 2, MinRunNs: MinRunNs},
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
			// Run 10's neighbour was measured in blocks: not alone.
			{Name: "loop", Index: 10, Bandits: 1, WallNs: 9000, Streamed: counts(1000)},
			{Name: "loop", Index: 11, WallNs: 1000, Blocked: true},
			// Starved bandits: not used.
			{Name: "busy", Index: 0, WallNs: 100},
			{Name: "busy", Index: 1, Bandits: 1, WallNs: 200, Streamed: bandit.Counts{Lines: 10, BusyNs: 1, WallNs: 2}},
		},
		Blocks: []BlockSample{
			// A first run in blocks: 100 and 120 ns a task alone
			// around a block beside a bandit at 132.
			{Name: "once", Block: 0, Tasks: 10, WallNs: 1000},
			{Name: "once", Block: 1, Tasks: 5, WallNs: 660, Bandits: 1, Streamed: counts(10000)},
			{Name: "once", Block: 2, Tasks: 10, WallNs: 1200},
			// Cut short by the run's end: not measured.
			{Name: "once", Block: 3, Tasks: 1, WallNs: 500, Bandits: 1, Streamed: counts(100), Partial: true},
			// A block whose neighbours in the list belong to another
			// run and another name: not used.
			{Name: "once", Index: 1, Block: 3, Tasks: 5, WallNs: 6600, Bandits: 1, Spin: 8, Streamed: counts(2500)},
			{Name: "other", Index: 1, Block: 4, Tasks: 5, WallNs: 100},
		}}
	got := Analyze(raw)
	want := map[string]tree.ProbeSection{
		// 1300 against (1000+1200)/2 = 1100; share (10000−8500)/(10000−8000) = 0.75.
		// 2000 against 1000 (run 6 is missing); share (6000−5500)/(6000−5000) = 0.5.
		// 1050 against 1000 beside load 0.25.
		"loop": {Points: []tree.ProbePoint{{Bandits: 1, Spin: 8, Load: 0.25, Runs: 1, Slowdown: 1.05},
			{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1300.0 / 1100, Share: 0.75}, {Bandits: 3, Load: 3, Runs: 1, Slowdown: 2, Share: 0.5}}},
		// 660 against 5 tasks at 110 ns: 100 and 120 a task at the
		// neighbours' middles (tasks 5 and 20), interpolated to the
		// block's (12.5); the bandit was not slowed.
		"once": {Points: []tree.ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1.2, Share: 0}}},
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
	got := Analyze(raw)
	for name, want := range map[string]float64{"three": 1.2, "two": 610.0 / 200} {
		pts := got.Sections[name].Points
		if len(pts) != 1 || math.Abs(pts[0].Slowdown-want) > 1e-9 {
			t.Errorf("%s: %+v, want one point of slowdown %.4g", name, pts, want)
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
		p.SecBegin("s", nil)
		p.SecBegin("inner", nil) // nested: ignored
		busy()
		p.SecEnd(nil)
		p.SecEnd(nil)
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
	// bandits of their reference measurements: then Starved counts them.
	starved := raw.Starved != nil && raw.Starved.N > 0
	if len(raw.Curve) == 0 && !starved || len(raw.Curve) > 0 && raw.Curve[0].Streams != 1 && !starved {
		t.Errorf("curve %+v, note %q, starved %+v", raw.Curve, raw.Note, raw.Starved)
	}
	for _, c := range raw.Curve {
		if c.Streams < 1 || c.MBs <= 0 {
			t.Errorf("curve point %+v", c)
		}
	}
}

// holdCount counts the pauses a Prober asks of a recording, and stands
// in for its count of top-level task ends.
type holdCount struct {
	paused, resumed int
	ends            int64
}

func (h *holdCount) Hold()              { h.paused++ }
func (h *holdCount) Release()           { h.resumed++ }
func (h *holdCount) TopTaskEnds() int64 { return h.ends }

// TestProberBlocks runs a first run of 40 tasks of about 100 µs, each
// with a nested section, in blocks of 300 µs, asked about task ends as
// the profiler asks (Profiler.SetTaskHook): blocks alone and beside
// bandits alternate, count the 40 tasks, the run is marked as not
// alone, and every start and stop of the bandits is held out of the
// recording.
func TestProberBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	p := Start(Options{BufferBytes: 4 << 20, CurveTime: 2 * 1e6, BlockNs: 300_000, Wait: true})
	h := &holdCount{}
	p.SecBegin("once", h)
	next := h.ends + 1
	for range 40 {
		t0 := time.Now()
		for time.Since(t0) < 100*time.Microsecond {
		}
		p.SecBegin("inner", h)
		p.SecEnd(h)
		if h.ends++; h.ends >= next {
			next = p.TaskEnds(h, h.ends)
		}
	}
	p.SecEnd(h)
	raw := p.Stop()
	if raw.Cores < 2 {
		t.Skip("one core")
	}
	if h.paused != h.resumed || h.paused < 3 {
		t.Errorf("paused %d, resumed %d times", h.paused, h.resumed)
	}
	if len(raw.Runs) != 1 || !raw.Runs[0].Blocked || raw.Runs[0].WallNs < 3_000_000 {
		t.Errorf("runs %+v", raw.Runs)
	}
	tasks, on := 0, 0
	for i, b := range raw.Blocks {
		tasks += b.Tasks
		if b.Block != i || b.Name != "once" || b.Tasks < 1 || b.WallNs < 200_000 && i < len(raw.Blocks)-1 {
			t.Errorf("block %d: %+v", i, b)
		}
		if b.Bandits > 0 {
			on++
			if i%2 != 1 || b.Streamed.Lines <= 0 {
				t.Errorf("block %d beside bandits: %+v", i, b)
			}
		}
	}
	if tasks != 40 || on < 2 {
		t.Errorf("%d tasks in %d blocks, %d beside bandits", tasks, len(raw.Blocks), on)
	}
}

// TestBlockBaselineTrend: tasks that grow along the run (100 + 10·k ns
// for task k) in blocks of 4, 2 and 2 tasks, the middle one beside
// bandits that slowed nothing: its baseline is its own time, where the
// mean of its neighbours' times a task would read 2·(115+165)/2 = 280.
func TestBlockBaselineTrend(t *testing.T) {
	blocks := []BlockSample{
		{Name: "s", Block: 0, Tasks: 4, WallNs: 460},
		{Name: "s", Block: 1, Tasks: 2, WallNs: 290, Bandits: 1},
		{Name: "s", Block: 2, Tasks: 2, WallNs: 330},
	}
	if got := blockBaseline(blocks, blockStarts(blocks), 1); got != 290 {
		t.Errorf("baseline %d, want 290", got)
	}
}

// TestProberLoweredProcs: a program that lowers GOMAXPROCS below the
// probe's cores after it started gets no more runs beside bandits, and a
// note says why.
func TestProberLoweredProcs(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	p := Start(Options{BufferBytes: 4 << 20, CurveTime: 1e6, MinRunNs: 1, Wait: true})
	if p.raw.Cores < 2 {
		p.Stop()
		t.Skip("one core")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 3 {
		p.SecBegin("s", nil)
		p.SecEnd(nil)
	}
	raw := p.Stop()
	if len(raw.Runs) != 0 || !strings.Contains(raw.Note, "lowered GOMAXPROCS to 1") {
		t.Errorf("runs %+v, note %q", raw.Runs, raw.Note)
	}
}

// TestStarvedRefsNote checks the note on starved reference measurements,
// one for all the runs Analyze pools.
func TestStarvedRefsNote(t *testing.T) {
	for _, c := range []struct {
		n      int
		lo, hi float64
		want   string
	}{
		{1, 0.76, 0.76, "bandits starved while measuring the bandwidth curve (76% of a core each): those references are not used"},
		{7, 0.404, 0.76, "bandits starved in 7 measurements of the bandwidth curve (40-76% of a core each): those references are not used"},
		{2, 0.5, 0.501, "bandits starved in 2 measurements of the bandwidth curve (50% of a core each): those references are not used"},
	} {
		if got := (StarvedRefs{N: c.n, Lo: c.lo, Hi: c.hi}).note(); got != c.want {
			t.Errorf("StarvedRefs{%d, %v, %v}.note() = %q, want %q", c.n, c.lo, c.hi, got, c.want)
		}
	}
	// Analyze pools the counts of several runs into one note, beside
	// the runs' other notes.
	raws := []Raw{
		{Note: "other", Starved: &StarvedRefs{N: 2, Lo: 0.7, Hi: 0.79}},
		{Starved: &StarvedRefs{N: 1, Lo: 0.65, Hi: 0.65}},
		{Note: "other"},
	}
	want := "other; bandits starved in 3 measurements of the bandwidth curve (65-79% of a core each): those references are not used"
	if got := Analyze(raws...).Note; got != want {
		t.Errorf("pooled note %q, want %q", got, want)
	}
}
