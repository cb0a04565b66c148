package calibrate

import (
	"context"

	"github.com/parallel-prophet/prophet/internal/robust"
)

// Chunk migration beside short tasks: each task's spin, and how far
// under ChunkMigrateNs the fetch beside them must cost for
// measureChunkShort to keep it (nearer than that, the two differ by
// little more than the rounds' spread: the line's move costs about the
// same whatever the workers' pace).
const (
	chunkShortTaskNs = 25
	chunkShortShare  = 0.8
	// chunkShortIters is how many tasks each of measureChunkShort's
	// loops runs: enough that the loop lasts several milliseconds, so
	// that the second worker's late start (a wake-up, up to a tenth of
	// a millisecond) weighs little against the fetches.
	chunkShortIters = 400_000
)

// measureChunkShort returns ChunkMigrateShortNs and ChunkShortTaskNs:
// what a fetch that moves the counter's line costs beyond chunkNs when
// two workers' tasks compute chunkShortTaskNs each, measured as
// measureChunkMigrate measures it beside longer tasks (fetchBeside, over
// chunkShortIters tasks), and those tasks' own length (the median of
// one worker's static loop of them, per task, one a round).
// The task is short enough that on a machine whose cores move lines
// slowly the fetch costs well under the whole move. Where it costs no
// less than chunkShortShare of migNs (ChunkMigrateNs), or migNs is 0, or
// the line through the origin and the short end would reach migNs only
// past the tasks migNs was measured beside, it returns zeros: no short
// end.
func measureChunkShort(ctx context.Context, chunkNs, migNs float64) (shortNs, taskNs float64, err error) {
	owns := make([]float64, 0, chunkMigrateRounds)
	f, err := fetchBeside(ctx, chunkShortIters, chunkShortTaskNs, &owns)
	if err != nil {
		return 0, 0, err
	}
	shortNs, taskNs = f-chunkNs, robust.Median(owns)
	if !(migNs > 0) || !(shortNs > 0) || !(taskNs > 0) || shortNs >= chunkShortShare*migNs {
		return 0, 0, nil
	}
	// The line through the origin and the short end must reach the
	// whole move by the tasks migNs was measured beside (their length
	// in the same proportion to its request as the short tasks'): a
	// short end that would reach it only later contradicts that
	// measurement (the two met different modes of the machine).
	if shortNs*chunkMigrateTaskNs < migNs*chunkShortTaskNs {
		return 0, 0, nil
	}
	return shortNs, taskNs, nil
}
