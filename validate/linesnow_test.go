package validate

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// TestLineCosts checks that ff is charged the medians of the cache-line
// costs the rounds measured, and the profile's where none did.
func TestLineCosts(t *testing.T) {
	prof := machine.Default().Overheads
	for _, c := range []struct {
		name                        string
		lock, chunk, serve          []float64
		wantLock, wantChk, wantServ float64
	}{
		{"none measured", nil, nil, nil, prof.LockMigrateNs, prof.ChunkMigrateNs, prof.ChunkServeNs},
		{"one round", []float64{240}, []float64{100}, []float64{90}, 240, 100, 90},
		// A round after which the machine had switched modes does not
		// set the costs of the other four.
		{"a switch", []float64{40, 42, 250, 39, 41}, []float64{5, 6, 110, 4, 7}, []float64{20, 22, 95, 21, 19}, 41, 6, 21},
	} {
		rs := &roundSet{}
		for i := range c.lock {
			rs.lines = append(rs.lines, lineCost{lockMig: c.lock[i], chunkMig: c.chunk[i], chunkServe: c.serve[i]})
		}
		got := rs.lineCosts(prof)
		if got.LockMigrateNs != c.wantLock || got.ChunkMigrateNs != c.wantChk || got.ChunkServeNs != c.wantServ {
			t.Errorf("%s: lock %v, chunk %v, serve %v; want %v, %v, %v", c.name, got.LockMigrateNs, got.ChunkMigrateNs, got.ChunkServeNs, c.wantLock, c.wantChk, c.wantServ)
		}
		want := prof
		want.LockMigrateNs, want.ChunkMigrateNs, want.ChunkServeNs = got.LockMigrateNs, got.ChunkMigrateNs, got.ChunkServeNs
		if got != want {
			t.Errorf("%s: other overheads changed", c.name)
		}
	}
}

// TestLineCostsShortEnd checks that ff is charged the chunk move's
// short end of one round, the median one, with its own task length; a
// round without one counts as the lowest.
func TestLineCostsShortEnd(t *testing.T) {
	for _, c := range []struct {
		name             string
		short, task      []float64
		wantShort, wantT float64
	}{
		{"five rounds", []float64{0, 70, 80, 0, 75}, []float64{0, 25, 26, 0, 27}, 70, 25},
		{"most without", []float64{0, 70, 0}, []float64{0, 25, 0}, 0, 0},
		{"an even count", []float64{80, 70}, []float64{26, 25}, 80, 26},
	} {
		rs := &roundSet{}
		for i := range c.short {
			rs.lines = append(rs.lines, lineCost{lockMig: 300, chunkMig: 150, chunkServe: 80, chunkShort: c.short[i], chunkShortTask: c.task[i]})
		}
		got := rs.lineCosts(machine.Default().Overheads)
		if got.ChunkMigrateShortNs != c.wantShort || got.ChunkShortTaskNs != c.wantT {
			t.Errorf("%s: short end %v at %v, want %v at %v", c.name, got.ChunkMigrateShortNs, got.ChunkShortTaskNs, c.wantShort, c.wantT)
		}
	}
}

// TestRoundsMeasureLineCosts checks that with Config.LinesNow every
// kept round of real runs measures the cache-line costs after its
// parallel runs, and that without it none does.
func TestRoundsMeasureLineCosts(t *testing.T) {
	if testing.Short() {
		t.Skip("times real runs")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	p, err := Generate(Fine, SampleSeed(1, Fine, 0), 0.01)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := annotate.Record(p.Serial)
	if err != nil {
		t.Fatal(err)
	}
	sub := subject{test: Fine, reset: func() {}, serial: p.Serial, plain: p.SerialPlain, parallel: p.Parallel, check: func() error { return nil }}
	keys := []key{{par.Schedule{Policy: par.Static}, min(2, runtime.NumCPU())}}
	for _, linesNow := range []bool{false, true} {
		cfg := Config{Repeats: 3, MaxRepeats: 3, LinesNow: linesNow}
		m := &measurer{cfg: cfg, threads: []int{keys[0].t}, opt: emulate.Options{Overheads: machine.Default().Overheads}, noted: map[string]bool{}}
		rs, err := m.rounds(context.Background(), sub, tr, keys, m.opt)
		if err != nil {
			t.Fatal(err)
		}
		// On one core the costs are measured as 0 (no line moves
		// between cores), and kept all the same.
		want := 0
		if linesNow {
			want = len(rs.serial)
		}
		if len(rs.lines) != want {
			t.Errorf("LinesNow %v: %d rounds measured the line costs, want %d (of %d kept)", linesNow, len(rs.lines), want, len(rs.serial))
		}
	}
}

// TestPredictPairsRoundCosts checks that with the line costs measured
// per round, ff's prediction is the median of its predictions with each
// round's pair of costs, not its prediction with each cost's median
// taken apart, which here pairs the cheap rounds' lock cost with the
// slow rounds' fetch cost.
func TestPredictPairsRoundCosts(t *testing.T) {
	// A dynamic:1 loop of short tasks, each taking a short lock: its
	// speedup follows both costs.
	tasks := make([]*tree.Node, 2000)
	for i := range tasks {
		tasks[i] = tree.Task("t", tree.U(int64(80+i%7)), tree.L(1, 20), tree.U(40))
	}
	tr := tree.New(tree.Sec("loop", tasks...))
	prof := machine.Default().Overheads
	k := key{par.Schedule{Policy: par.Dynamic, Chunk: 1}, 2}
	e := ff.New()
	// Three cheap rounds' lock costs and three slow rounds' fetch costs:
	// the medians apart come from different modes.
	rs := &roundSet{
		serial: []float64{1, 1, 1, 1, 1},
		lines:  []lineCost{{40, 20, 15, 0, 0}, {41, 120, 60, 0, 0}, {42, 121, 61, 0, 0}, {250, 122, 62, 0, 0}, {251, 21, 16, 0, 0}},
	}
	m := &measurer{}
	opt := emulate.Options{Overheads: prof}
	got, cpu, err := m.predict(e, tr, k, rs, opt, robust.Median)
	if err != nil {
		t.Fatal(err)
	}
	var speedups, cpus []float64
	for _, c := range rs.lines {
		o := opt
		o.Overheads.LockMigrateNs, o.Overheads.ChunkMigrateNs, o.Overheads.ChunkServeNs = c.lockMig, c.chunkMig, c.chunkServe
		r, err := emulate.Predict(e, tr, k.t, k.s, o)
		if err != nil {
			t.Fatal(err)
		}
		speedups = append(speedups, r.Speedup)
		cpus = append(cpus, predictedCPU(r))
	}
	if want := robust.Median(speedups); math.Abs(got.Speedup-want) > 1e-9*want {
		t.Errorf("predict = %v, want the median of the rounds' predictions %v (%v)", got.Speedup, want, speedups)
	}
	if want := robust.Median(cpus); cpu != want || !(cpu > 1) {
		t.Errorf("predict's CPU inflation = %v, want the median of the rounds' %v (%v), above 1 (a dynamic counter and a lock cost the threads)", cpu, want, cpus)
	}
	apart := opt
	apart.Overheads = rs.lineCosts(prof)
	r, err := emulate.Predict(e, tr, k.t, k.s, apart)
	if err != nil {
		t.Fatal(err)
	}
	if r.Speedup == got.Speedup {
		t.Errorf("the medians apart (lock %v, chunk %v) give the same prediction %v: the test does not tell the two apart", apart.Overheads.LockMigrateNs, apart.Overheads.ChunkMigrateNs, r.Speedup)
	}
	// Without costs measured per round, the profile's are charged.
	one, _, err := m.predict(e, tr, k, &roundSet{serial: []float64{1}}, opt, robust.Median)
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := emulate.Predict(e, tr, k.t, k.s, opt); one.Speedup != plain.Speedup {
		t.Errorf("without line costs predict = %v, want %v", one.Speedup, plain.Speedup)
	}
}
