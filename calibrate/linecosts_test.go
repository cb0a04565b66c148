package calibrate

import (
	"context"
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
)

// sc is a measurement of spawn costs without a hot start.
func sc(spawnNs, runNs, slope, taskNs float64) spawnCosts {
	return spawnCosts{spawnNs: spawnNs, runNs: runNs, slope: slope, taskNs: taskNs}
}

// hot is a measurement of spawn costs with a hot start.
func hot(spawnNs, runNs, hotNs, hotTaskNs float64) spawnCosts {
	return spawnCosts{spawnNs: spawnNs, runNs: runNs, slope: 0.2, taskNs: 2000, shortTaskNs: 200, hotNs: hotNs, hotTaskNs: hotTaskNs}
}

// TestMedianCosts checks that the spawn costs MeasureLineCosts keeps are
// the measurement whose spawn and run costs add up to the median, every
// cost from that one measurement.
func TestMedianCosts(t *testing.T) {
	for _, c := range []struct {
		name string
		ps   []spawnCosts
		want spawnCosts
	}{
		{"one", []spawnCosts{sc(400, 600, 0, 0)}, sc(400, 600, 0, 0)},
		// A disturbed measurement (sum 2400) does not count, nor does
		// the pair of medians (500, 700), which no measurement gave.
		{"outlier", []spawnCosts{sc(450, 700, 0, 0), sc(900, 1500, 0, 0), sc(500, 600, 0, 0)}, sc(450, 700, 0, 0)},
		{"low outlier", []spawnCosts{sc(100, 50, 0, 0), sc(420, 700, 0, 0), sc(450, 600, 0, 0)}, sc(450, 600, 0, 0)},
		// The slope, the hot start and their task lengths go with
		// their measurement.
		{"slope", []spawnCosts{sc(200, 900, 0.3, 2000), sc(210, 1000, 0.1, 2000), sc(220, 700, 0.5, 2000)}, sc(200, 900, 0.3, 2000)},
		{"hot start", []spawnCosts{hot(200, 900, 150, 90), hot(210, 1000, 100, 110), hot(220, 700, 120, 100)}, hot(200, 900, 150, 90)},
		// An even count takes the upper middle.
		{"even", []spawnCosts{sc(300, 600, 0, 0), sc(300, 700, 0, 0), sc(300, 500, 0, 0), sc(300, 800, 0, 0)}, sc(300, 700, 0, 0)},
	} {
		if got := medianCosts(c.ps); got != c.want {
			t.Errorf("%s: medianCosts = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMeasureLineCosts checks which overheads MeasureLineCosts measures:
// the two migration costs, the spawn pair only when asked, every other
// field as given; and that a cancelled context stops it.
func TestMeasureLineCosts(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns about 200,000 goroutines")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	in := machine.Default().Overheads
	in.SpawnNs, in.SpawnRunNs, in.LockMigrateNs, in.ChunkMigrateNs, in.ChunkServeNs = -1, -1, -1, -1, -1
	for _, spawn := range []bool{false, true} {
		ov, err := MeasureLineCosts(context.Background(), in, spawn)
		if err != nil {
			t.Fatal(err)
		}
		if ov.LockMigrateNs < 0 || ov.ChunkMigrateNs < 0 || !(ov.ChunkServeNs > 0) {
			t.Errorf("spawn %v: line costs not measured: lock %v, chunk %v, served every %v", spawn, ov.LockMigrateNs, ov.ChunkMigrateNs, ov.ChunkServeNs)
		}
		// SpawnRunTaskNs is the 2 µs (or longer) task's own measured
		// time, which a core slower or faster than when spin.Work's
		// rate was measured moves by up to a third.
		if spawn && (ov.SpawnNs <= 0 || ov.SpawnRunNs <= 0 || ov.SpawnRunTaskNs < 1000 || ov.SpawnRunSlope < 0) {
			t.Errorf("spawn costs not measured: %v and %v, slope %v at %v", ov.SpawnNs, ov.SpawnRunNs, ov.SpawnRunSlope, ov.SpawnRunTaskNs)
		}
		// The hot start is measured: a task length (one of
		// measureSpawnHot's), a cost of at least 0, and the short end
		// not far under the hot task.
		if spawn && (!(ov.SpawnRunHotTaskNs > 0) || ov.SpawnRunHotNs < 0 || ov.SpawnRunShortTaskNs < ov.SpawnRunHotTaskNs/2) {
			t.Errorf("hot start not measured: %v at %v (short end %v)", ov.SpawnRunHotNs, ov.SpawnRunHotTaskNs, ov.SpawnRunShortTaskNs)
		}
		if !spawn && (ov.SpawnNs != -1 || ov.SpawnRunNs != -1) {
			t.Errorf("spawn costs measured though not asked for: %v and %v", ov.SpawnNs, ov.SpawnRunNs)
		}
		// The short end is measured under the whole move, or not at
		// all.
		if ov.ChunkMigrateShortNs != 0 && !(ov.ChunkMigrateShortNs < ov.ChunkMigrateNs && ov.ChunkShortTaskNs > 0) || ov.ChunkMigrateShortNs == 0 && ov.ChunkShortTaskNs != 0 {
			t.Errorf("spawn %v: short end %v at %v with a move of %v", spawn, ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs, ov.ChunkMigrateNs)
		}
		// The rest as given.
		want := in
		want.LockMigrateNs, want.ChunkMigrateNs, want.ChunkServeNs = ov.LockMigrateNs, ov.ChunkMigrateNs, ov.ChunkServeNs
		want.ChunkMigrateShortNs, want.ChunkShortTaskNs = ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs
		if spawn {
			want.SpawnNs, want.SpawnRunNs = ov.SpawnNs, ov.SpawnRunNs
			want.SpawnRunSlope, want.SpawnRunTaskNs = ov.SpawnRunSlope, ov.SpawnRunTaskNs
			want.SpawnRunShortTaskNs, want.SpawnRunHotNs, want.SpawnRunHotTaskNs = ov.SpawnRunShortTaskNs, ov.SpawnRunHotNs, ov.SpawnRunHotTaskNs
		}
		if ov != want {
			t.Errorf("spawn %v: other overheads changed:\n got %+v\nwant %+v", spawn, ov, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureLineCosts(ctx, in, true); err == nil {
		t.Error("cancelled context: want an error")
	}
}

// TestHotTurn checks where measureSpawnHot puts the turn from the spawner's
// pace to the cores', on wall times made up by hand: the last loop, from
// the least of the shorter half on, within spawnHotRise of that least.
func TestHotTurn(t *testing.T) {
	owns := []float64{40, 80, 120, 160, 200, 240}
	for _, c := range []struct {
		name         string
		walls        []float64
		hot, hotTask float64
	}{
		// The shortest tasks cost the spawner a wake-up more; the least
		// is 250, and 270 is within 15% of it, 400 not.
		{"turn", []float64{300, 250, 260, 270, 400, 500}, 240 - 160, 160},
		{"keeps up throughout", []float64{250, 250, 250, 250, 250, 250}, 0, 240},
		{"falls behind at once", []float64{250, 400, 500, 600, 700, 800}, 240 - 40, 40},
		// A loop back under the rise after one above it does not count.
		{"first rise", []float64{250, 260, 400, 260, 260, 260}, 240 - 80, 80},
		// The least is looked for in the shorter half only.
		{"least among the short", []float64{300, 290, 280, 400, 100, 100}, 240 - 120, 120},
	} {
		hot, task := hotTurn(c.walls, owns, 240)
		if hot != c.hot || task != c.hotTask {
			t.Errorf("%s: hotTurn = %v at %v, want %v at %v", c.name, hot, task, c.hot, c.hotTask)
		}
	}
}

// TestSpawnCurveNote checks what calibrate's summary says of the run cost
// of shorter tasks: the short end's cost and the hot start where
// measured, the slope where only it is.
func TestSpawnCurveNote(t *testing.T) {
	line := machine.Overheads{SpawnRunNs: 600, SpawnRunSlope: 0.2, SpawnRunTaskNs: 2000}
	full := line
	full.SpawnRunShortTaskNs, full.SpawnRunHotNs, full.SpawnRunHotTaskNs = 300, 100, 120
	for _, c := range []struct {
		name string
		ov   machine.Overheads
		want string
	}{
		{"measured", full, "260 ns with tasks of 300 ns, 100 ns while the cores keep up, with tasks up to 120 ns"},
		{"an older profile", line, "0.20 ns less per ns of shorter task, no hot start measured"},
		{"no short loop", machine.Overheads{SpawnRunNs: 600, SpawnRunTaskNs: 2000, SpawnRunShortTaskNs: 2000}, "no hot start measured"},
	} {
		if got := spawnCurveNote(c.ov); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
