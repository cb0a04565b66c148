package calibrate

import (
	"context"
	"reflect"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
)

func TestOverheadFieldsComplete(t *testing.T) {
	var o machine.Overheads
	fields := overheadFields(&o)
	if n := reflect.TypeOf(o).NumField(); len(fields) != n {
		t.Fatalf("overheadFields lists %d fields, machine.Overheads has %d", len(fields), n)
	}
	for i, p := range fields {
		*p = float64(i + 1)
	}
	v := reflect.ValueOf(o)
	seen := map[float64]bool{}
	for i := 0; i < v.NumField(); i++ {
		x := v.Field(i).Float()
		if x == 0 || seen[x] {
			t.Errorf("field %s not listed once by overheadFields", v.Type().Field(i).Name)
		}
		seen[x] = true
	}
}

func TestMedianOverheads(t *testing.T) {
	a := machine.Overheads{LockHandoffNs: 100e3, LockSwitchNs: 770, WakeP50Ns: 15e3, WakeP90Ns: 21e3, NoiseHz: 500}
	b := machine.Overheads{LockHandoffNs: 120e3, LockSwitchNs: 1300, WakeP50Ns: 18e3, WakeP90Ns: 40e3, NoiseHz: 860}
	c := machine.Overheads{LockHandoffNs: 104e3, LockSwitchNs: 760, WakeP50Ns: 16e3, WakeP90Ns: 25e3, NoiseHz: 560}
	want := machine.Overheads{LockHandoffNs: 104e3, LockSwitchNs: 770, WakeP50Ns: 16e3, WakeP90Ns: 25e3, NoiseHz: 560}
	if got := MedianOverheads([]machine.Overheads{a, b, c}); got != want {
		t.Errorf("median of three:\n got %+v\nwant %+v", got, want)
	}
	// The short end as a pair from one run: the median short end
	// (0 counts as the lowest) with its own task length.
	shorts := []machine.Overheads{
		{ChunkMigrateShortNs: 0, ChunkShortTaskNs: 0},
		{ChunkMigrateShortNs: 50, ChunkShortTaskNs: 25},
		{ChunkMigrateShortNs: 60, ChunkShortTaskNs: 16},
	}
	if got := MedianOverheads(shorts); got.ChunkMigrateShortNs != 50 || got.ChunkShortTaskNs != 25 {
		t.Errorf("median of three short ends: %v at %v, want 50 at 25", got.ChunkMigrateShortNs, got.ChunkShortTaskNs)
	}
	if got := MedianOverheads([]machine.Overheads{b}); got != b {
		t.Errorf("median of one: got %+v, want %+v", got, b)
	}
	if got := MedianOverheads([]machine.Overheads{b, a}); got.LockHandoffNs != 110e3 || got.NoiseHz != 680 {
		t.Errorf("median of two: got %+v, want the means", got)
	}
	if got := MedianOverheads(nil); got != (machine.Overheads{}) {
		t.Errorf("median of none: got %+v, want zero", got)
	}
	// The inputs are left as they were.
	if a.LockHandoffNs != 100e3 || b.LockHandoffNs != 120e3 {
		t.Error("MedianOverheads changed its input")
	}
}

func TestMeasureOverheadsMedianCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureOverheadsMedian(ctx, 3, nil); err == nil {
		t.Error("no error from a cancelled context")
	}
}

// TestWakeFitsPerRun checks that the runs of a median make at least as
// many wake-up fits together as one MeasureOverheads, and no more per
// run than it.
func TestWakeFitsPerRun(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 3}, {1, 3}, {2, 2}, {3, 1}, {7, 1}} {
		got := wakeFitsPerRun(c.n)
		if got != c.want {
			t.Errorf("wakeFitsPerRun(%d) = %d, want %d", c.n, got, c.want)
		}
		if runs := max(c.n, 1); got*runs < wakeRounds {
			t.Errorf("wakeFitsPerRun(%d): %d fits in all, fewer than %d", c.n, got*runs, wakeRounds)
		}
	}
}
