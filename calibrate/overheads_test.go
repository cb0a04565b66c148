package calibrate

import (
	"context"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

func TestMeasureOverheads(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a few seconds")
	}
	var calls, last int
	ov, err := MeasureOverheads(context.Background(), func(done, total int) {
		calls++
		if done <= last || done > total {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("measured overheads: %+v", ov)
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"ForkNs", ov.ForkNs}, {"SpawnNs", ov.SpawnNs}, {"SpawnRunNs", ov.SpawnRunNs},
		{"LockNs", ov.LockNs}, {"LockHandoffNs", ov.LockHandoffNs}, {"LockWakeNs", ov.LockWakeNs},
	} {
		if !(f.v > 0) || math.IsInf(f.v, 0) || f.v > 1e9 {
			t.Errorf("%s = %v: want a positive time under a second", f.name, f.v)
		}
	}
	if runtime.GOMAXPROCS(0) > 1 && !(ov.WakeP50Ns > 0) {
		t.Errorf("WakeP50Ns = %v: want a positive time", ov.WakeP50Ns)
	}
	if runtime.NumCPU() > 1 && !(ov.LockSpinNs > 0 && ov.LockSpinRampNs >= 0) {
		t.Errorf("spin window %v + %v: want a positive window and a ramp of 0 or more", ov.LockSpinNs, ov.LockSpinRampNs)
	}
	if ov.JoinNs < 0 || ov.ChunkNs < 0 || ov.ChunkNs > 1e6 || ov.ChunkMigrateNs < 0 || ov.ChunkMigrateNs > 1e6 {
		t.Errorf("JoinNs = %v, ChunkNs = %v, ChunkMigrateNs = %v: want 0 or more (and a fetch under a millisecond)", ov.JoinNs, ov.ChunkNs, ov.ChunkMigrateNs)
	}
	if ov.WakeP90Ns < ov.WakeP50Ns {
		t.Errorf("WakeP90Ns %v < WakeP50Ns %v", ov.WakeP90Ns, ov.WakeP50Ns)
	}
	if ov.NoiseHz < 0 || ov.NoiseP90Ns < ov.NoiseP50Ns || (ov.NoiseHz > 0) != (ov.NoiseP50Ns > noiseGapNs) {
		t.Errorf("noise %v Hz, p50 %v ns, p90 %v ns: want a rate of 0 or more and, with hiccups, p90 >= p50 > %d", ov.NoiseHz, ov.NoiseP50Ns, ov.NoiseP90Ns, noiseGapNs)
	}
	if calls != 16 {
		t.Errorf("progress called %d times, want 16", calls)
	}
	if ov.LockLocalNs < lockLocalMinNs || ov.LockLocalNs > max(ov.LockNs, lockLocalMinNs) {
		t.Errorf("LockLocalNs = %v: want %v to LockNs (%v)", ov.LockLocalNs, lockLocalMinNs, ov.LockNs)
	}
	if !(ov.ChanSendNs > 0) || !(ov.ChanRecvNs > 0) {
		t.Errorf("channel send %v ns, receive %v ns: want both measured", ov.ChanSendNs, ov.ChanRecvNs)
	}
	if ov.LockSwitchNs < 0 {
		t.Errorf("LockSwitchNs = %v < 0", ov.LockSwitchNs)
	}
}

func TestMeasureOverheadsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureOverheads(ctx, nil); err == nil {
		t.Fatal("cancelled context: want an error")
	}
}

// TestSpawnRunTask checks the task length of measureSpawnRun's loops:
// long enough that the spawner cannot starve the cores.
func TestSpawnRunTask(t *testing.T) {
	for _, c := range []struct {
		t       int
		spawnNs float64
		want    int64
	}{
		{2, 200, 2000},     // 4·2·200 = 1600: the 2 µs floor
		{2, 400, 3200},     // 4·2·400
		{16, 500, 32000},   // 4·16·500
		{1, -5, 2000},      // a negative cost counts as none
		{64, 1000, 256000}, // 4·64·1000
	} {
		if got := spawnRunTask(c.t, c.spawnNs); got != c.want {
			t.Errorf("spawnRunTask(%d, %v) = %d, want %d", c.t, c.spawnNs, got, c.want)
		}
	}
}

// TestSpawnRunLoop checks that spawnRunLoop runs its tasks: the wall
// time per goroutine of n computing tasks of task ns on two Ps is at
// least a third of task/2 (spin.Work's rate, measured at start-up, can
// be a third off the core's speed later). The tasks are long enough
// that spawning alone (about a microsecond a goroutine on the project's
// VM) stays under that.
func TestSpawnRunLoop(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range []struct {
		n    int
		task int64
	}{
		{500, 20000},
		{200, 60000},
	} {
		w := spawnRunLoop(c.n, c.task)
		if floor := float64(c.task) / 2 / 3; !(w >= floor) {
			t.Errorf("spawnRunLoop(%d, %d) = %.0f ns a goroutine, want at least %.0f", c.n, c.task, w, floor)
		}
	}
}

func BenchmarkForkJoin(b *testing.B) {
	for b.Loop() {
		forkOnce(2, 0)
		joinOnce(2, 0)
	}
}

// chunkLoop runs par.For's dynamic:1 loop over n empty iterations with t
// workers and returns the wall time: the fetch when nothing else runs.
func chunkLoop(n, t int) time.Duration {
	start := clock.Now()
	par.For(n, t, par.Schedule{Policy: par.Dynamic, Chunk: 1}, func(int) {})
	return time.Duration(clock.Now() - start)
}

func BenchmarkChunkDispatch(b *testing.B) {
	n := max(b.N, 1)
	b.ResetTimer()
	d := chunkLoop(n, 2)
	b.ReportMetric(float64(d)*2/float64(n), "ns/chunk")
}

func BenchmarkSpawn(b *testing.B) {
	var sum float64
	for b.Loop() {
		perGo := spawnLoop(spawnPerTrial, spawnTaskNs)
		sum += perGo
	}
	b.ReportMetric(sum/float64(b.N), "ns/go")
}

func BenchmarkLock(b *testing.B) {
	b.ReportMetric(lockLoop(max(b.N, 1)), "ns/lock")
}

func BenchmarkLockHandoff(b *testing.B) {
	var sum, unlock float64
	for b.Loop() {
		h, u := handoffOnce(20 * time.Microsecond)
		sum, unlock = sum+h, unlock+u
	}
	b.ReportMetric(sum/float64(b.N), "ns/handoff")
	b.ReportMetric(unlock/float64(b.N), "ns/unlock")
}

// wakeIdle is how long BenchmarkWake sleeps before a wake-up trial, and
// wakeTimeout bounds one trial.
const (
	wakeIdle    = 2 * time.Millisecond
	wakeTimeout = 20 * time.Millisecond
)

// wakeOnce sleeps idle, starts a goroutine and spins until it has started
// (or timeout), returning the start latency.
func wakeOnce(idle, timeout time.Duration) float64 {
	time.Sleep(idle)
	var started atomic.Int64
	t0 := clock.Now()
	go func() { started.Store(clock.Now()) }()
	end := t0 + int64(timeout)
	for started.Load() == 0 && clock.Now() < end {
	}
	s := started.Load()
	if s == 0 {
		// Not started within timeout: let it run, count the timeout.
		for started.Load() == 0 {
			runtime.Gosched()
		}
		return float64(timeout)
	}
	return float64(max(s-t0, 0))
}

func BenchmarkWake(b *testing.B) {
	var sum float64
	for b.Loop() {
		sum += wakeOnce(wakeIdle, wakeTimeout)
	}
	b.ReportMetric(sum/float64(b.N), "ns/wake")
}

// spinFor busy-waits for ns nanoseconds on the monotonic clock, touching
// no memory.
func spinFor(ns int64) {
	end := clock.Now() + ns
	for clock.Now() < end {
	}
}

// BenchmarkRealVsPredicted is the fast-forward emulator's accuracy check
// on this machine: it measures the overheads (MeasureOverheads), then
// runs a triangular loop (iterations of 8, 7, ..., 1 ms of spinning) with
// par.For at GOMAXPROCS=2 for several schedules and compares the real
// speedup with ff's prediction under the measured overheads and without
// any. Every iteration runs the serial loop and each schedule once, each
// after 2 ms of idling (so the second core sleeps, as before a parallel
// loop of a real program); medians over iterations are reported as
// metrics: SCHED-real, SCHED-ff, SCHED-ideal (speedups) and SCHED-err%
// (ff's error relative to the real speedup). Run with -benchtime 20x.
func BenchmarkRealVsPredicted(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs two cores")
	}
	const n = 8
	lens := make([]int64, n)
	var tasks []*tree.Node
	var serialNs float64
	for i := range lens {
		lens[i] = int64(n-i) * int64(time.Millisecond)
		tasks = append(tasks, tree.Task("i", tree.U(lens[i])))
		serialNs += float64(lens[i])
	}
	sec := tree.Sec("triangular", tasks...)
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	ov, err := MeasureOverheads(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("measured overheads: %+v", ov)
	schedules := []string{"static", "static:1", "dynamic:1", "guided:1", "spawn"}
	serial := []float64{}
	real := map[string][]float64{}
	b.ResetTimer()
	for b.Loop() {
		time.Sleep(2 * time.Millisecond)
		t0 := clock.Now()
		for _, l := range lens {
			spinFor(l)
		}
		serial = append(serial, float64(clock.Now()-t0))
		for _, s := range schedules {
			sc, _ := par.ParseSchedule(s)
			time.Sleep(2 * time.Millisecond)
			t0 := clock.Now()
			par.For(n, 2, sc, func(i int) { spinFor(lens[i]) })
			real[s] = append(real[s], float64(clock.Now()-t0))
		}
	}
	b.StopTimer()
	ser := robust.Median(serial)
	for _, s := range schedules {
		sc, _ := par.ParseSchedule(s)
		pred, err := ff.New().Section(sec, 2, sc, 1, emulate.Options{Overheads: ov})
		if err != nil {
			b.Fatal(err)
		}
		ideal, err := ff.New().Section(sec, 2, sc, 1, emulate.Options{})
		if err != nil {
			b.Fatal(err)
		}
		realS := ser / robust.Median(real[s])
		predS := serialNs / pred.ParallelNs
		b.ReportMetric(realS, s+"-real")
		b.ReportMetric(predS, s+"-ff")
		b.ReportMetric(serialNs/ideal.ParallelNs, s+"-ideal")
		b.ReportMetric(100*(predS-realS)/realS, s+"-err%")
	}
}

func TestFitWake(t *testing.T) {
	lens := []float64{100e3, 300e3, 1e6, 3e6}
	tests := []struct{ p50, p90 float64 }{{200e3, 1.5e6}, {25e3, 1e6}, {1e6, 3e6}}
	for _, tc := range tests {
		delays := make([]float64, len(lens))
		for i, l := range lens {
			delays[i] = wakeModel(tc.p50, tc.p90, 0, l)
		}
		p50, p90 := fitWake(lens, delays)
		// The grid has 15 points per decade: within a step (17%) of the
		// truth, or an equally good fit.
		e := wakeFitErr(p50, p90, 0, lens, delays)
		if e > 1e-3 || !(p90 > p50) {
			t.Errorf("fit of p50 %v p90 %v: got %v, %v (error %v)", tc.p50, tc.p90, p50, p90, e)
		}
		t.Logf("truth %v/%v fitted %.0f/%.0f", tc.p50, tc.p90, p50, p90)
	}
}

func TestFitRunnext(t *testing.T) {
	lens := []float64{100e3, 300e3, 1e6}
	tests := []struct{ p50, p90, r float64 }{{25e3, 50e3, 70e3}, {25e3, 50e3, 0}, {100e3, 300e3, 500e3}, {10e3, 1e6, 150e3}}
	for _, tc := range tests {
		delays := make([]float64, len(lens))
		for i, l := range lens {
			delays[i] = wakeModel(tc.p50, tc.p90, tc.r, l)
		}
		if got := fitRunnext(tc.p50, tc.p90, lens, delays); math.Abs(got-tc.r) > 500 {
			t.Errorf("wake %v/%v, runnext %v: fitted %v", tc.p50, tc.p90, tc.r, got)
		}
	}
}

// TestNoiseStats checks the hiccup summary on gaps given by hand.
func TestNoiseStats(t *testing.T) {
	tests := []struct {
		name         string
		gaps         []float64
		watchedNs    float64
		hz, p50, p90 float64
	}{
		{"none", nil, 1e9, 0, 0, 0},
		{"nothing watched", []float64{5000}, 0, 0, 0, 0},
		// 10 hiccups in 0.5 s of watching (two cores, 0.25 s each);
		// sorted, the 5th and 6th are 6 and 7 µs, and the 90th
		// percentile lies a tenth of the way from 10 to 100 µs.
		{"ten", []float64{10e3, 3e3, 4e3, 5e3, 6e3, 7e3, 8e3, 9e3, 2.5e3, 100e3}, 0.5e9, 20, 6.5e3, 19e3},
	}
	for _, tc := range tests {
		hz, p50, p90 := noiseStats(tc.gaps, tc.watchedNs)
		if hz != tc.hz || math.Abs(p50-tc.p50) > 1e-6 || math.Abs(p90-tc.p90) > 1e-6 {
			t.Errorf("%s: %v Hz, p50 %v, p90 %v; want %v, %v, %v", tc.name, hz, p50, p90, tc.hz, tc.p50, tc.p90)
		}
	}
}
