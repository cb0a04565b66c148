package calibrate

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/machine"
)

// MeasureOverheadsMedian runs MeasureOverheads n times (n < 1 counts as
// 1) and returns MedianOverheads of the results. On a shared VM one
// measurement now and then lands in a disturbed stretch, and the
// predictions made with it are off on lock-bound programs; the median
// of each field over a few measurements keeps such a stretch out.
// Each run fits the wake-up latency fewer times than MeasureOverheads
// does (wakeFitsPerRun), since the median across runs does that work.
// progress (may be nil) counts the steps of all n.
func MeasureOverheadsMedian(ctx context.Context, n int, progress func(done, total int)) (machine.Overheads, error) {
	n = max(n, 1)
	runs := make([]machine.Overheads, 0, n)
	for i := 0; i < n; i++ {
		var p func(done, total int)
		if progress != nil {
			p = func(done, total int) { progress(i*total+done, n*total) }
		}
		ov, err := measureOverheads(ctx, wakeFitsPerRun(n), p)
		if err != nil {
			return machine.Overheads{}, fmt.Errorf("overhead measurement %d of %d: %w", i+1, n, err)
		}
		runs = append(runs, ov)
	}
	return MedianOverheads(runs), nil
}

// wakeFitsPerRun is how many wake-up fits each of n runs of
// MeasureOverheadsMedian makes: together at least wakeRounds, the median
// of whose fits MeasureOverheads alone would take. The fit is the
// longest of the measurements (a third of a second), and a median of a
// median of three fits, run three times, is nine fits where three keep a
// disturbed one out.
func wakeFitsPerRun(n int) int {
	n = max(n, 1)
	return max(1, (wakeRounds+n-1)/n)
}

// MedianOverheads returns, field by field, the median of runs (the lower
// middle value for an even count; the zero Overheads for none). Each
// field is measured on its own, and a median of each keeps every
// ordering that holds in every run (WakeP90Ns ≥ WakeP50Ns, NoiseP90Ns ≥
// NoiseP50Ns); the chunk move's short end (ChunkMigrateShortNs at
// ChunkShortTaskNs), measured together, comes from one run, the one
// whose short end is the median.
func MedianOverheads(runs []machine.Overheads) machine.Overheads {
	var out machine.Overheads
	if len(runs) == 0 {
		return out
	}
	fields := make([][]*float64, len(runs))
	for i := range runs {
		fields[i] = overheadFields(&runs[i])
	}
	xs := make([]float64, len(runs))
	for f, dst := range overheadFields(&out) {
		for i := range runs {
			xs[i] = *fields[i][f]
		}
		*dst = robust.Quantile(0.5, xs)
	}
	// The chunk move's short end and its task length are a pair, the
	// line's one point: both from the run whose short end is the median
	// (a run without one, 0, counts as the lowest).
	byShort := slices.Clone(runs)
	slices.SortStableFunc(byShort, func(a, b machine.Overheads) int {
		return cmp.Compare(a.ChunkMigrateShortNs, b.ChunkMigrateShortNs)
	})
	mid := byShort[(len(byShort)-1)/2]
	out.ChunkMigrateShortNs, out.ChunkShortTaskNs = mid.ChunkMigrateShortNs, mid.ChunkShortTaskNs
	return out
}

// overheadFields lists the fields of o (TestOverheadFieldsComplete checks
// that none is missing).
func overheadFields(o *machine.Overheads) []*float64 {
	return []*float64{
		&o.ForkNs, &o.JoinNs, &o.ChunkNs, &o.ChunkMigrateNs, &o.ChunkServeNs, &o.ChunkMigrateShortNs, &o.ChunkShortTaskNs, &o.TaskCallNs, &o.SpawnNs, &o.SpawnRunNs, &o.SpawnRunSlope, &o.SpawnRunTaskNs, &o.SpawnRunHotNs, &o.SpawnRunHotTaskNs, &o.SpawnRunShortTaskNs, &o.ChanSendNs, &o.ChanRecvNs,
		&o.LockNs, &o.LockLocalNs, &o.LockMigrateNs, &o.LockHandoffNs, &o.LockHandoffP90Ns, &o.LockWakeNs, &o.LockDozeNs, &o.LockDozeRampNs, &o.LockDozeHandoffNs, &o.LockDozeWakeNs, &o.LockSwitchNs, &o.LockSpinNs, &o.LockSpinRampNs, &o.LockCheckNs,
		&o.WakeP50Ns, &o.WakeP90Ns, &o.RunnextNs, &o.WakeStepNs,
		&o.NoiseHz, &o.NoiseP50Ns, &o.NoiseP90Ns,
	}
}
