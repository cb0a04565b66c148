package syn

import (
	"flag"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

var accuracy = flag.Bool("accuracy", false, "run the synthesizer's accuracy checks (slow, timing-dependent; prints measured vs predicted)")

// accuracyRounds is how many times each check is repeated (syn estimates
// and real runs); the reports use medians.
const accuracyRounds = 9

// compare measures a real par program (prog, spin work of serialNs in
// all) at GOMAXPROCS threads and syn's prediction of tr, alternating one
// real run and one syn estimate per round so that a change in the
// machine's load hits both alike. It returns the real speedup
// (serial / median wall), the median syn speedup and the median time one
// syn estimate took.
func compare(t *testing.T, e *Emulator, tr *tree.Tree, threads int, s par.Schedule, opt emulate.Options, serialNs float64, prog func()) (real, syn, costNs float64) {
	t.Helper()
	walls := make([]float64, accuracyRounds)
	sp := make([]float64, accuracyRounds)
	cost := make([]float64, accuracyRounds)
	for k := -1; k < accuracyRounds; k++ { // round −1 warms both up
		prev := runtime.GOMAXPROCS(threads)
		start := clock.Now()
		prog()
		wall := float64(clock.Now() - start)
		runtime.GOMAXPROCS(prev)
		start = clock.Now()
		res, err := emulate.Predict(e, tr, threads, s, opt)
		if err != nil {
			t.Fatal(err)
		}
		if k >= 0 {
			walls[k], sp[k], cost[k] = wall, res.Speedup, float64(clock.Now()-start)
		}
	}
	return serialNs / robust.Median(walls), robust.Median(sp), robust.Median(cost)
}

// synSpeedup predicts tr rounds times and returns the median speedup and
// the median time one estimate took.
func synSpeedup(t *testing.T, e *Emulator, tr *tree.Tree, threads int, s par.Schedule, opt emulate.Options) (speedup, costNs float64) {
	t.Helper()
	sp := make([]float64, accuracyRounds)
	cost := make([]float64, accuracyRounds)
	for k := range sp {
		start := clock.Now()
		res, err := emulate.Predict(e, tr, threads, s, opt)
		if err != nil {
			t.Fatal(err)
		}
		cost[k] = float64(clock.Now() - start)
		sp[k] = res.Speedup
	}
	return robust.Median(sp), robust.Median(cost)
}

// TestAccuracy checks the synthesizer's goals and prints measured against
// predicted speedups. Opt-in: go test ./emulate/syn -run TestAccuracy -args -accuracy
func TestAccuracy(t *testing.T) {
	if !*accuracy || testing.Short() {
		t.Skip("accuracy checks are opt-in: -args -accuracy")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 cores")
	}
	walkStart := clock.Now()
	w := MeasureWalk()
	t.Logf("MeasureWalk: node %.1f ns, call %.1f ns (took %v)", w.NodeNs, w.CallNs, time.Duration(clock.Now()-walkStart))
	opt := emulate.Options{Walk: w}
	e := New(Options{MaxThreads: 2})

	t.Run("walk subtraction", func(t *testing.T) {
		sec := tree.Sec("flat", tree.Run(100_000, tree.Task("t", tree.U(1000))))
		tr := tree.New(sec)
		plan, err := compile(sec, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []par.Schedule{{Policy: par.Static}, {Policy: par.Dynamic, Chunk: 1}} {
			got, cost := synSpeedup(t, e, tr, 1, s, opt)
			// The prediction never goes below work/threads; show the
			// speedup before that bound too, so over-subtraction shows.
			raw := make([]float64, 3)
			for k := range raw {
				raw[k] = float64(plan.work) / e.measure([]*tree.Node{sec}, []*secPlan{plan}, 1, s, w, 0)[0].unclamped
			}
			verdict := "ok"
			if math.Abs(robust.Median(raw)-1) > 0.03 {
				verdict = "OUTSIDE 1.00±0.03"
			}
			t.Logf("10^5 tasks × 1 µs at t=1, %v: syn speedup %.3f, %.3f before the work/threads bound (%s); one estimate took %.1f ms for T/S ≈ 100 ms", s, got, robust.Median(raw), verdict, cost/1e6)
		}
	})

	const taskNs = 2_000_000
	fig7 := tree.New(tree.Sec("outer", tree.Run(2, tree.Task("o",
		tree.Sec("inner", tree.Run(3, tree.Task("i", tree.U(taskNs))))))))
	t.Run("fig7", func(t *testing.T) {
		for _, s := range []par.Schedule{{Policy: par.Static}, {Policy: par.Dynamic, Chunk: 1}, {Policy: par.Spawn}} {
			real, got, cost := compare(t, e, fig7, 2, s, opt, 6*taskNs, func() {
				par.For(2, 2, s, func(int) {
					par.For(3, 2, s, func(int) { spin.For(taskNs) })
				})
			})
			t.Logf("Fig. 7 shape (2 × nested 3 × 2 ms) at t=2, %-9v real %.3f  syn %.3f  error %+.1f%% (goal 7%%); estimate %.1f ms for T/S %.1f ms",
				s, real, got, 100*(got-real)/real, cost/1e6, 6*taskNs/real/1e6)
		}
	})

	t.Run("triangular", func(t *testing.T) {
		var tasks []*tree.Node
		serial := 0.0
		for k := 8; k >= 1; k-- {
			tasks = append(tasks, tree.Task("t", tree.U(int64(k)*1_000_000)))
			serial += float64(k) * 1e6
		}
		tri := tree.New(tree.Sec("tri", tasks...))
		for _, s := range []par.Schedule{{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 1}, {Policy: par.Dynamic, Chunk: 1}, {Policy: par.Guided, Chunk: 1}, {Policy: par.Spawn}} {
			real, got, cost := compare(t, e, tri, 2, s, opt, serial, func() {
				par.For(8, 2, s, func(i int) { spin.For(int64(8-i) * 1_000_000) })
			})
			t.Logf("triangular 8..1 ms at t=2, %-9v real %.3f  syn %.3f  error %+.1f%% (goal 5%%); estimate %.1f ms for T/S %.1f ms",
				s, real, got, 100*(got-real)/real, cost/1e6, serial/real/1e6)
		}
	})
}

// BenchmarkEstimate is the cost of one syn estimate (warm-up plus
// Repeats replays) of a section of 1000 tasks of 10 µs at 2 threads.
func BenchmarkEstimate(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs 2 cores")
	}
	tr := tree.New(tree.Sec("s", tree.Run(1000, tree.Task("t", tree.U(10_000)))))
	e := New(Options{MaxThreads: 2})
	opt := emulate.Options{Walk: MeasureWalk()}
	var sp float64
	for b.Loop() {
		res, err := emulate.Predict(e, tr, 2, par.Schedule{Policy: par.Dynamic, Chunk: 1}, opt)
		if err != nil {
			b.Fatal(err)
		}
		sp = res.Speedup
	}
	b.ReportMetric(sp, "speedup")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(1e7/sp), "cost/(T/S)")
}

// BenchmarkMeasureWalk is the cost of measuring the walking costs.
func BenchmarkMeasureWalk(b *testing.B) {
	var w = MeasureWalk()
	for b.Loop() {
		w = MeasureWalk()
	}
	b.ReportMetric(w.NodeNs, "node_ns")
	b.ReportMetric(w.CallNs, "call_ns")
}
