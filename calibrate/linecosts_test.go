package calibrate

import (
	"context"
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
)

// TestMedianCosts checks that the spawn costs MeasureLineCosts keeps are
// the measurement whose spawn and run costs add up to the median, every
// cost from that one measurement.
func TestMedianCosts(t *testing.T) {
	for _, c := range []struct {
		name string
		ps   []spawnCosts
		want spawnCosts
	}{
		{"one", []spawnCosts{{400, 600, 0, 0}}, spawnCosts{400, 600, 0, 0}},
		// A disturbed measurement (sum 2400) does not count, nor does
		// the pair of medians (500, 700), which no measurement gave.
		{"outlier", []spawnCosts{{450, 700, 0, 0}, {900, 1500, 0, 0}, {500, 600, 0, 0}}, spawnCosts{450, 700, 0, 0}},
		{"low outlier", []spawnCosts{{100, 50, 0, 0}, {420, 700, 0, 0}, {450, 600, 0, 0}}, spawnCosts{450, 600, 0, 0}},
		// The slope and its task length go with their measurement.
		{"slope", []spawnCosts{{200, 900, 0.3, 2000}, {210, 1000, 0.1, 2000}, {220, 700, 0.5, 2000}}, spawnCosts{200, 900, 0.3, 2000}},
		// An even count takes the upper middle.
		{"even", []spawnCosts{{300, 600, 0, 0}, {300, 700, 0, 0}, {300, 500, 0, 0}, {300, 800, 0, 0}}, spawnCosts{300, 700, 0, 0}},
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
		if !spawn && (ov.SpawnNs != -1 || ov.SpawnRunNs != -1) {
			t.Errorf("spawn costs measured though not asked for: %v and %v", ov.SpawnNs, ov.SpawnRunNs)
		}
		// The rest as given.
		want := in
		want.LockMigrateNs, want.ChunkMigrateNs, want.ChunkServeNs = ov.LockMigrateNs, ov.ChunkMigrateNs, ov.ChunkServeNs
		if spawn {
			want.SpawnNs, want.SpawnRunNs = ov.SpawnNs, ov.SpawnRunNs
			want.SpawnRunSlope, want.SpawnRunTaskNs = ov.SpawnRunSlope, ov.SpawnRunTaskNs
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
