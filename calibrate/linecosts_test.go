package calibrate

import (
	"context"
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
)

// TestMedianPair checks that the spawn costs MeasureLineCosts keeps are
// the measured pair whose sum is the median, both costs from that one
// measurement.
func TestMedianPair(t *testing.T) {
	for _, c := range []struct {
		name string
		ps   []spawnPair
		want spawnPair
	}{
		{"one", []spawnPair{{400, 600}}, spawnPair{400, 600}},
		// A disturbed measurement (sum 2400) does not count, nor does
		// the pair of medians (500, 700), which no measurement gave.
		{"outlier", []spawnPair{{450, 700}, {900, 1500}, {500, 600}}, spawnPair{450, 700}},
		{"low outlier", []spawnPair{{100, 50}, {420, 700}, {450, 600}}, spawnPair{450, 600}},
		// An even count takes the upper middle.
		{"even", []spawnPair{{300, 600}, {300, 700}, {300, 500}, {300, 800}}, spawnPair{300, 700}},
	} {
		if got := medianPair(c.ps); got != c.want {
			t.Errorf("%s: medianPair = %v, want %v", c.name, got, c.want)
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
	in.SpawnNs, in.SpawnRunNs, in.LockMigrateNs, in.ChunkMigrateNs = -1, -1, -1, -1
	for _, spawn := range []bool{false, true} {
		ov, err := MeasureLineCosts(context.Background(), in, spawn)
		if err != nil {
			t.Fatal(err)
		}
		if ov.LockMigrateNs < 0 || ov.ChunkMigrateNs < 0 {
			t.Errorf("spawn %v: migration costs not measured: lock %v, chunk %v", spawn, ov.LockMigrateNs, ov.ChunkMigrateNs)
		}
		if spawn && (ov.SpawnNs <= 0 || ov.SpawnRunNs <= 0) {
			t.Errorf("spawn costs not measured: %v and %v", ov.SpawnNs, ov.SpawnRunNs)
		}
		if !spawn && (ov.SpawnNs != -1 || ov.SpawnRunNs != -1) {
			t.Errorf("spawn costs measured though not asked for: %v and %v", ov.SpawnNs, ov.SpawnRunNs)
		}
		// The rest as given.
		want := in
		want.LockMigrateNs, want.ChunkMigrateNs = ov.LockMigrateNs, ov.ChunkMigrateNs
		if spawn {
			want.SpawnNs, want.SpawnRunNs = ov.SpawnNs, ov.SpawnRunNs
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
