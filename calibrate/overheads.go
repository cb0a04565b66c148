package calibrate

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
)

// Trial counts of MeasureOverheads. Together they take a few seconds.
const (
	forkTrials = 400
	// spawnTrials loops of spawnPerTrial goroutines each time the go
	// statement (measureSpawn): loops long enough for the spawner's
	// steady pace, which a program's loop of tens of thousands of
	// goroutines keeps, rather than a few milliseconds that a passing
	// stretch of the machine's other work sets.
	spawnTrials   = 5
	spawnPerTrial = 30000
	// ownTaskTasks is how many tasks ownTaskNs runs one after the
	// other to time their own length.
	ownTaskTasks = 300
	// spawnRunPerTrial is how many goroutines each of
	// measureSpawnRun's loops spawns.
	spawnRunPerTrial = 20000
	// spawnRunTrials is how many loops measureSpawnRun times (the
	// median counts).
	spawnRunTrials = 3
	// spawnTaskNs is the task of measureSpawn's goroutines: short
	// enough that the cores keep up with the spawner, whose own cost
	// per go statement then sets the pace.
	spawnTaskNs = 50
	// spawnRunShortNs is the least task length of measureSpawnCosts's
	// loops of short tasks (SpawnRunSlope).
	spawnRunShortNs = 200
	lockIters       = 1 << 20
	// lockSwitchPerTrial goroutines each hold one lock lockSwitchHoldNs
	// in a lock-switch trial.
	lockSwitchPerTrial = 3000
	lockSwitchHoldNs   = 2000
	// teamSpin is the work of each team member in a fork trial.
	teamSpin = 20 * time.Microsecond
	// wakeGap is the serial code between back-to-back sections.
	wakeGap = 20 * time.Microsecond
)

// MeasureOverheads measures, with real goroutine constructs on this
// machine at the current GOMAXPROCS (t), the costs the fast-forward
// emulator charges:
//
//   - ForkNs: the encountering goroutine's time to start a team of t-1
//     goroutines (wg.Add and the go statements, as par.For does), median
//     over trials in which every member then spins 20 µs;
//   - JoinNs: the mean time from the end of a section's last task to
//     the return of par.For, in spawn sections of t tasks that spin
//     20 µs each, the caller waiting at once, back to back (mostly the
//     wake-up that the last wg.Done makes for the waiting goroutine);
//   - ChunkNs: what a chunk fetch adds per task to a dynamic:1 loop of
//     one worker and tasks of 50 ns over the same loop as a static
//     block (median of nine rounds; see measureChunk), each task
//     computing on its index, as ChunkMigrateNs's do (workLoop);
//   - TaskCallNs: what par.For's call of its body adds per task to a
//     static loop of one worker and tasks of 50 ns that compute on their
//     index, over the same loop written inline (median of nine rounds;
//     see measureTaskCall);
//   - ChunkMigrateNs: what a fetch costs beyond ChunkNs when the counter
//     was last fetched from on another core, from two workers whose
//     tasks of a fifth of a microsecond make them take turns at the
//     counter (see measureChunkMigrate); 0 with GOMAXPROCS = 1;
//     ChunkMigrateShortNs and ChunkShortTaskNs: the same beside tasks
//     of 25 ns, and their length, where it costs clearly less there
//     (see measureChunkShort);
//   - SpawnNs: the spawner's time per go statement, 3000 at a time, each
//     new goroutine computing 50 ns while the other cores, awake, steal
//     and run them as fast as they come (spawnLoop; the median of 7 such
//     spawns: a trial that something else disturbed, at two to four
//     times the others, would move a mean by a third and, through
//     SpawnRunNs's task length, the split between the two costs);
//   - SpawnRunNs: what a spawned goroutine costs the core that runs it
//     beyond its task, from par.For spawn loops whose tasks (computing,
//     as a program's do) are long enough that the cores, not the
//     spawner, limit them (see measureSpawnRun); SpawnRunTaskNs that
//     task's length as timed alone, and SpawnRunSlope how much less a
//     loop of short tasks costs each goroutine (see measureSpawnCosts);
//     SpawnRunHotNs and SpawnRunHotTaskNs where the cores keep up with
//     the spawner, from the task length at which par.For spawn loops
//     turn from the spawner's pace to the cores' (measureSpawnHot), and
//     SpawnRunShortTaskNs the short loops' task length;
//   - ChanSendNs: one goroutine's time per send of 10^5 into a buffered
//     channel with room for them; ChanRecvNs: the time per receive of
//     a pool of t goroutines draining that channel with an empty body
//     (par's pool schedule: wall time × t / receives); each the best
//     of three;
//   - LockNs: one uncontended sync.Mutex Lock and Unlock, back to back;
//   - LockLocalNs: what an uncontended Lock, an increment of the counter
//     it guards and an Unlock add to a loop of computed tasks of
//     lockLocalTaskNs, against the loop with the increment alone: the
//     median difference of lockLocalPairs interleaved pairs of loops of
//     lockLocalTasks tasks, at least lockLocalMinNs and at most LockNs;
//   - LockMigrateNs: how much longer a critical section (Lock, an
//     increment of the counter it guards, Unlock) takes when the mutex
//     and the counter were last used on another core: two goroutines on
//     two threads take turns (without waiting for the lock: the turn
//     passes after the Unlock), against one goroutine taking it again
//     (median of three rounds; 0 with GOMAXPROCS = 1);
//   - LockHandoffNs, LockHandoffP90Ns, LockWakeNs and the doze
//     (LockDozeNs, LockDozeRampNs, LockDozeHandoffNs, LockDozeWakeNs):
//     the time from the Unlock of a holder that kept the lock 10 µs to
//     2 ms to the parked waiter returning from Lock, and how long that
//     Unlock itself took, as a function of the hold (see
//     measureHandoff and fitHandoff);
//   - LockSwitchNs: the time per critical section that a spawn of 3000
//     goroutines, each taking one lock for 2 µs and nothing else, takes
//     beyond 3000 × 2 µs on all cores: the lock passes from goroutine to
//     goroutine, each of which parked for it and must be switched in
//     (median of 3; see measureLockSwitch);
//   - LockSpinNs, LockSpinRampNs: the spin window, from a sweep of how
//     long a holder keeps the lock after a waiter in the same team asks
//     for it (0 to 8 µs): whether the waiter was still awake when the
//     Unlock came (it holds the lock within 10 µs) or had parked
//     (FitSpinWindow); LockCheckNs: from the same sweep, the time
//     between two checks of the lock by the spinning waiter
//     (FitSpinCheck);
//   - WakeP50Ns, WakeP90Ns: the median and 90th percentile of the
//     wake-up latency of an idle core (the time from a go statement to
//     the new goroutine starting there, when it is queued behind
//     another), fitted to how late the later task of real two-task
//     spawn sections starts, back to back, for task lengths of 10 µs to
//     3 ms; RunnextNs: the back-off before an idle core takes a busy
//     core's runnext goroutine, fitted to two-thread team sections of
//     0.1 to 1 ms (see measureWake);
//   - ChunkServeNs: the dynamic counter's time per fetch when
//     GOMAXPROCS workers take short computing tasks from it (see
//     measureChunkServe);
//   - WakeStepNs: how far apart a team's workers start after its first
//     woken one, from teams of GOMAXPROCS workers (machines of four
//     cores or more; see measureWakeStep);
//   - NoiseHz, NoiseP50Ns, NoiseP90Ns: how often, and for how long, a
//     core running a goroutine loses it for a moment while another core
//     runs on: every core reads the clock in a tight loop for 0.2 s, a
//     gap of more than 2 µs between two reads is a hiccup, and what
//     counts of it is the part in which another core read on, if more
//     than 2 µs (see measureNoise).
//
// It takes a few seconds; progress (may be nil) is called after each
// measurement. With GOMAXPROCS = 1 there is no other core to
// wake: WakeP50Ns, WakeP90Ns and RunnextNs are then 0, and the team
// measured is of two goroutines on the one core.
func MeasureOverheads(ctx context.Context, progress func(done, total int)) (machine.Overheads, error) {
	return measureOverheads(ctx, wakeRounds, progress)
}

// measureOverheads is MeasureOverheads with wakeFits fits of the wake-up
// latency (the median taken). MeasureOverheadsMedian asks for fewer per
// run: the median across its runs already keeps a disturbed fit out.
func measureOverheads(ctx context.Context, wakeFits int, progress func(done, total int)) (machine.Overheads, error) {
	var ov machine.Overheads
	t := max(runtime.GOMAXPROCS(0), 2)
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"fork and join", func(ctx context.Context) (err error) { ov.ForkNs, ov.JoinNs, err = measureForkJoin(ctx, t); return }},
		{"chunk dispatch", func(ctx context.Context) (err error) { ov.ChunkNs, err = measureChunk(ctx); return }},
		{"task call", func(ctx context.Context) (err error) { ov.TaskCallNs, err = measureTaskCall(ctx); return }},
		{"chunk migration", func(ctx context.Context) (err error) {
			if runtime.GOMAXPROCS(0) < 2 {
				return nil
			}
			if ov.ChunkMigrateNs, err = measureChunkMigrate(ctx, ov.ChunkNs); err != nil {
				return err
			}
			ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs, err = measureChunkShort(ctx, ov.ChunkNs, ov.ChunkMigrateNs)
			return
		}},
		{"chunk queue", func(ctx context.Context) (err error) {
			if runtime.GOMAXPROCS(0) < 2 {
				return nil
			}
			ov.ChunkServeNs, err = measureChunkServe(ctx)
			return
		}},
		{"spawn", func(ctx context.Context) error {
			c, err := measureSpawnCosts(ctx)
			c.set(&ov)
			return err
		}},
		{"channel", func(ctx context.Context) (err error) { ov.ChanSendNs, ov.ChanRecvNs, err = measureChan(ctx, t); return }},
		{"uncontended lock", func(ctx context.Context) (err error) { ov.LockNs, err = measureLock(ctx); return }},
		{"uncontended lock beside work", func(ctx context.Context) (err error) { ov.LockLocalNs, err = measureLockLocal(ctx, ov.LockNs); return }},
		{"lock migration", func(ctx context.Context) (err error) {
			if runtime.GOMAXPROCS(0) < 2 {
				return nil
			}
			ov.LockMigrateNs, err = measureLockMigrate(ctx)
			return
		}},
		{"lock hand-off", func(ctx context.Context) error {
			c, err := measureHandoff(ctx)
			c.set(&ov)
			return err
		}},
		{"lock switch", func(ctx context.Context) (err error) { ov.LockSwitchNs, err = measureLockSwitch(ctx); return }},
		{"lock spin window", func(ctx context.Context) (err error) {
			ov.LockSpinNs, ov.LockSpinRampNs, ov.LockCheckNs, err = measureSpin(ctx)
			return
		}},
		{"wake-up latency", func(ctx context.Context) (err error) {
			if runtime.GOMAXPROCS(0) < 2 {
				return nil
			}
			ov.WakeP50Ns, ov.WakeP90Ns, ov.RunnextNs, err = measureWake(ctx, wakeFits)
			return
		}},
		{"wake step", func(ctx context.Context) (err error) { ov.WakeStepNs, err = measureWakeStep(ctx); return }},
		{"noise", func(ctx context.Context) (err error) {
			ov.NoiseHz, ov.NoiseP50Ns, ov.NoiseP90Ns, err = measureNoise(ctx)
			return
		}},
	}
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			return machine.Overheads{}, fmt.Errorf("measuring %s: %w", s.name, err)
		}
		if err := s.run(ctx); err != nil {
			return machine.Overheads{}, fmt.Errorf("measuring %s: %w", s.name, err)
		}
		if progress != nil {
			progress(i+1, len(steps))
		}
	}
	return ov, nil
}

// forkOnce runs one team of t members that each spin d, as par.For
// does, and returns the encountering goroutine's time to start the t-1
// others (wg.Add and the go statements).
func forkOnce(t int, d time.Duration) float64 {
	var wg sync.WaitGroup
	t0 := clock.Now()
	wg.Add(t - 1)
	for w := 1; w < t; w++ {
		go func() {
			spin.Wall(int64(d))
			wg.Done()
		}()
	}
	t1 := clock.Now()
	spin.Wall(int64(d))
	wg.Wait()
	return float64(t1 - t0)
}

// joinOnce runs one par.For spawn section of t tasks that spin d each,
// after 20 µs of serial spinning, and returns the time from the end of
// the last task's body to par.For's return.
func joinOnce(t int, d time.Duration) float64 {
	spin.Wall(int64(wakeGap))
	ends := make([]int64, t) // par.For's return orders the writes before the read
	par.For(t, t, par.Schedule{Policy: par.Spawn}, func(i int) {
		spin.Wall(int64(d))
		ends[i] = clock.Now()
	})
	return float64(max(clock.Now()-slices.Max(ends), 0))
}

func measureForkJoin(ctx context.Context, t int) (fork, join float64, err error) {
	forks := make([]float64, 0, forkTrials)
	var joins float64
	for i := 0; i < forkTrials; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		forks = append(forks, forkOnce(t, teamSpin))
		joins += joinOnce(t, teamSpin)
	}
	return robust.Quantile(0.5, forks), joins / forkTrials, nil
}

// measureChunk returns what a chunk fetch adds to a dynamic:1 loop of
// short tasks on one worker, where the counter's line stays on its
// core: the median, over chunkRounds rounds, of its wall time less the
// same loop's as a static block, per task (at least 0). Each task
// computes chunkTaskNs on its index (workLoop), its length loaded
// from a slice, as a body loads its item. What the fetch costs when
// workers take turns at the counter is ChunkMigrateNs
// (measureChunkMigrate). A fetch beside a task costs what the core
// cannot overlap with the task, a fraction of the empty loop's (every
// worker fetching back to back; BenchmarkChunkDispatch), which ff would
// otherwise charge at every fetch of every dynamic loop.
func measureChunk(ctx context.Context) (float64, error) {
	lens := chunkLens()
	d, err := dynamicOverStatic(ctx, chunkRounds, func(s par.Schedule) float64 {
		return workLoop(len(lens), 1, s, func(i int) int64 { return lens[i] })
	})
	return max(d/chunkTasks, 0), err
}

// chunkLens returns the lengths of chunkTasks tasks of chunkTaskNs each,
// loaded from a slice as a body loads its item.
func chunkLens() []int64 {
	lens := make([]int64, chunkTasks)
	for i := range lens {
		lens[i] = chunkTaskNs
	}
	return lens
}

// measureTaskCall returns what par.For adds to each task of a static
// loop of one worker by calling the loop body through a function value,
// over the same loop written inline: the median, over taskCallRounds
// rounds, of the difference per task (at least 0). Each task computes
// chunkTaskNs on its index, its length loaded from a slice, as in
// measureChunk.
func measureTaskCall(ctx context.Context) (float64, error) {
	lens := chunkLens()
	var sink atomic.Int64
	inline := func() float64 {
		t0 := clock.Now()
		for i := range lens {
			computeTask(lens[i], i, &sink)
		}
		return float64(clock.Now() - t0)
	}
	called := func() float64 {
		t0 := clock.Now()
		par.For(len(lens), 1, par.Schedule{Policy: par.Static}, func(i int) {
			computeTask(lens[i], i, &sink)
		})
		return float64(clock.Now() - t0)
	}
	d, err := medianDiff(ctx, taskCallRounds, inline, called)
	return max(d/chunkTasks, 0), err
}

// taskCallRounds is how many rounds measureTaskCall takes the median of.
const taskCallRounds = 9

// dynamicOverStatic returns the median, over rounds rounds, of how much
// longer loop takes as dynamic:1 than as static blocks, in nanoseconds
// (medianDiff).
func dynamicOverStatic(ctx context.Context, rounds int, loop func(par.Schedule) float64) (float64, error) {
	return medianDiff(ctx, rounds,
		func() float64 { return loop(par.Schedule{Policy: par.Static}) },
		func() float64 { return loop(par.Schedule{Policy: par.Dynamic, Chunk: 1}) })
}

// medianDiff returns the median, over rounds rounds, of how much longer
// other takes than base, in nanoseconds: each round times base and then
// other, back to back, so that a slow stretch of the machine falls on
// both.
func medianDiff(ctx context.Context, rounds int, base, other func() float64) (float64, error) {
	xs := make([]float64, rounds)
	for i := range xs {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		b := base()
		xs[i] = other() - b
	}
	return robust.Median(xs), nil
}

// Chunk fetch measurement: tasks per loop, each task's spin, rounds.
const (
	chunkTasks  = 50_000
	chunkTaskNs = 50
	chunkRounds = 9
)

// Chunk migration measurement: tasks per loop, each task's spin, and
// rounds.
const (
	chunkMigrateIters  = 50_000
	chunkMigrateTaskNs = 200
	chunkMigrateRounds = 5
)

// workLoop runs par.For over n tasks with t workers and schedule
// sched, task i computing ns(i) nanoseconds on its index (spin.Work),
// and returns the wall time in nanoseconds. The tasks compute rather
// than spin because what a fetch costs depends on the work around it:
// a computation on the index waits for the fetch, and one that runs up
// to the next fetch meets it at full cost, where a spin's clock loop
// counts part of the counter's line move as its own (nearly all of it
// with spin.For, whose first reading runs ahead of the fetch, and part
// of it even with spin.ForOrdered), so that the fetch would measure as
// cheaper than it is for a program.
func workLoop(n, t int, sched par.Schedule, ns func(int) int64) float64 {
	var sink atomic.Int64
	start := clock.Now()
	par.For(n, t, sched, func(i int) { computeTask(ns(i), i, &sink) })
	return float64(clock.Now() - start)
}

// computeTask computes for about ns nanoseconds on task i's index
// (spin.Work), the task of calibrate's loops that compute; sink counts
// results that came out 0 (none does: only a seed of 0 mixes to 0),
// which keeps the work from being optimized away. It is inlined where
// it is called, so that a loop of it runs the work inline.
func computeTask(ns int64, i int, sink *atomic.Int64) {
	if spin.Work(ns, uint64(i)+1) == 0 {
		sink.Add(1)
	}
}

// Chunk queue measurement: tasks per loop, and rounds; each task
// computes chunkTaskNs, as measureChunk's do.
const (
	chunkServeIters  = 100_000
	chunkServeRounds = 5
)

// measureChunkServe returns how long the dynamic counter takes per fetch
// when its workers queue for it: GOMAXPROCS workers run a dynamic:1 loop
// of tasks computing chunkTaskNs each, and the median over
// chunkServeRounds rounds of its wall time per task is the counter's
// time per fetch under the fullest queue the machine makes
// (ChunkServeNs). The tasks compute, as a fine-grained loop's do: with
// empty ones, a core that holds the counter's line takes many fetches
// before another core's request gets in, far faster than any loop that
// works between its fetches sees. Where the counter keeps up even so,
// it is the loop's own time per task, which a queue never waits for.
func measureChunkServe(ctx context.Context) (float64, error) {
	t := runtime.GOMAXPROCS(0)
	xs := make([]float64, chunkServeRounds)
	for i := range xs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		xs[i] = workLoop(chunkServeIters, t, par.Schedule{Policy: par.Dynamic, Chunk: 1}, func(int) int64 { return chunkTaskNs }) / chunkServeIters
	}
	return robust.Median(xs), nil
}

// measureChunkMigrate returns what a dynamic chunk fetch costs beyond
// chunkNs (the empty loop's fetch, see measureChunk) when the counter's
// cache line was last written on another core. Two workers run tasks of
// chunkMigrateTaskNs, first as static blocks, then as dynamic:1, and the
// difference per task and worker is the whole fetch: with tasks that
// long they take turns at the counter, so nearly every fetch moves its
// line, where the empty loop's workers fetch many times in a row on
// their own core. The median over chunkMigrateRounds rounds
// (dynamicOverStatic). Two workers measure the move itself; more cores
// asking at once also queue for the line, which this does not model.
func measureChunkMigrate(ctx context.Context, chunkNs float64) (float64, error) {
	f, err := fetchBeside(ctx, chunkMigrateIters, chunkMigrateTaskNs, nil)
	if err != nil {
		return 0, err
	}
	return max(f-chunkNs, 0), nil
}

// fetchBeside returns the median over chunkMigrateRounds rounds of
// what a dynamic:1 loop of two workers over iters tasks computing task
// ns each takes beyond the same loop as static blocks, per task and
// worker: a whole fetch, chunkNs and the line's move included
// (dynamicOverStatic). With owns, each round also appends the tasks'
// own length, a static loop of one worker per task, to *owns.
func fetchBeside(ctx context.Context, iters int, task int64, owns *[]float64) (float64, error) {
	const t = 2
	ns := func(int) int64 { return task }
	d, err := dynamicOverStatic(ctx, chunkMigrateRounds, func(s par.Schedule) float64 {
		if owns != nil && s.Policy == par.Static {
			*owns = append(*owns, workLoop(iters, 1, s, ns)/float64(iters))
		}
		return workLoop(iters, t, s, ns)
	})
	return d * t / float64(iters), err
}

// LineMoveNs measures once, in a few milliseconds, what
// measureLockMigrate measures for LockMigrateNs: what a lock costs
// beyond an uncontended one when it and the data it guards were last
// used on another core. Some machines (cloud VMs) move cache lines
// between their cores faster at some times than at others, and validate
// measures it beside its real runs to say which the runs met. It needs
// GOMAXPROCS of two or more and returns 0 below that.
func LineMoveNs() float64 {
	if runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	return lockMigrateOnce(migrateIters / 4)
}

// MeasureLineCosts measures the overheads that follow what a cache
// line's move between cores costs, as MeasureOverheads does, and returns
// ov with them in place: LockMigrateNs (the median of three rounds),
// ChunkMigrateNs (beyond ov.ChunkNs) with its short end
// (ChunkMigrateShortNs, ChunkShortTaskNs) and ChunkServeNs, in about a
// fifth of a second, and with spawn also the spawn costs (a spawned
// goroutine's descriptor, stack and queue move between cores;
// MeasureSpawnCosts), in about a second.
// validate measures them beside a sample's real runs where a machine
// moves cache lines faster at some times than at others. With GOMAXPROCS
// below two the two migration costs are 0.
func MeasureLineCosts(ctx context.Context, ov machine.Overheads, spawn bool) (machine.Overheads, error) {
	var err error
	if runtime.GOMAXPROCS(0) < 2 {
		ov.LockMigrateNs, ov.ChunkMigrateNs, ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs = 0, 0, 0, 0
	} else {
		if ov.LockMigrateNs, err = measureLockMigrate(ctx); err != nil {
			return ov, fmt.Errorf("measuring lock migration: %w", err)
		}
		if ov.ChunkMigrateNs, err = measureChunkMigrate(ctx, ov.ChunkNs); err != nil {
			return ov, fmt.Errorf("measuring chunk migration: %w", err)
		}
		if ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs, err = measureChunkShort(ctx, ov.ChunkNs, ov.ChunkMigrateNs); err != nil {
			return ov, fmt.Errorf("measuring chunk migration beside short tasks: %w", err)
		}
		if ov.ChunkServeNs, err = measureChunkServe(ctx); err != nil {
			return ov, fmt.Errorf("measuring the chunk counter's queue: %w", err)
		}
	}
	if !spawn {
		return ov, nil
	}
	err = MeasureSpawnCosts(ctx, &ov)
	return ov, err
}

// MeasureSpawnCosts measures the spawn costs of ov (SpawnNs,
// SpawnRunNs, SpawnRunSlope and SpawnRunTaskNs) as MeasureOverheads
// does, lineSpawnRounds times, and sets those of the measurement whose
// SpawnNs and SpawnRunNs add up to the median (medianCosts), in about a
// second. Where a machine's costs change over minutes (cloud VMs that
// move cache lines between cores at two speeds), validate measures them
// so beside a sample's real runs. On an error ov is left as it was.
func MeasureSpawnCosts(ctx context.Context, ov *machine.Overheads) error {
	ms := make([]spawnCosts, lineSpawnRounds)
	for i := range ms {
		var err error
		if ms[i], err = measureSpawnCosts(ctx); err != nil {
			return fmt.Errorf("measuring spawn: %w", err)
		}
	}
	medianCosts(ms).set(ov)
	return nil
}

// lineSpawnRounds is how many times MeasureSpawnCosts measures the
// spawn costs together; the measurement with the median sum counts.
const lineSpawnRounds = 3

// spawnCosts is one measurement of the spawn costs, taken together
// (measureSpawnCosts measures the run costs beyond spawnNs): SpawnNs,
// SpawnRunNs, SpawnRunSlope, SpawnRunTaskNs, SpawnRunShortTaskNs,
// SpawnRunHotNs and SpawnRunHotTaskNs.
type spawnCosts struct {
	spawnNs, runNs, slope, taskNs, shortTaskNs float64
	hotNs, hotTaskNs                           float64
}

// set sets ov's spawn costs to c's.
func (c spawnCosts) set(ov *machine.Overheads) {
	ov.SpawnNs, ov.SpawnRunNs, ov.SpawnRunSlope, ov.SpawnRunTaskNs = c.spawnNs, c.runNs, c.slope, c.taskNs
	ov.SpawnRunShortTaskNs, ov.SpawnRunHotNs, ov.SpawnRunHotTaskNs = c.shortTaskNs, c.hotNs, c.hotTaskNs
}

// medianCosts returns the measurement of ps (not empty) whose spawnNs
// and runNs add up, what a spawned goroutine costs the cores in all, to
// the median (the upper middle one of an even count): one measurement
// that other load disturbed then does not set the costs, and the costs
// stay a set measured together, which a median of each would not be.
// It sorts ps.
func medianCosts(ps []spawnCosts) spawnCosts {
	slices.SortFunc(ps, func(a, b spawnCosts) int { return cmp.Compare(a.spawnNs+a.runNs, b.spawnNs+b.runNs) })
	return ps[len(ps)/2]
}

// migrateIters is how many turns each of the two goroutines of a lock
// migration round takes.
const migrateIters = 10_000

// measureLockMigrate returns the median of three lockMigrateOnce rounds.
func measureLockMigrate(ctx context.Context) (float64, error) {
	var xs [3]float64
	for i := range xs {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		xs[i] = lockMigrateOnce(migrateIters)
	}
	return robust.Median(xs[:]), nil
}

// lockMigrateOnce times n turns of each of two goroutines, locked to
// threads of their own, that take a mutex one after the other to
// increment a counter it guards (on a cache line of its own, as the data
// a lock protects is), each passing the turn after its Unlock, so the
// mutex's and the counter's cache lines move at every Lock and nobody
// waits for the lock itself; then n such critical sections of one
// goroutine. It returns the difference per critical section (at least
// 0): what taking a lock costs when it and its data were last used on
// another core.
func lockMigrateOnce(n int) float64 {
	// mu and turn are small neighbours on one cache line, so the
	// goroutine waiting for its turn reads the lock's line while the
	// other takes it, as a contended Lock's spinning waiter does: the
	// result counts that traffic with the move (half as much with each
	// on a line of its own; see docs/measurements.md, "Recording").
	var (
		mu    sync.Mutex
		turn  atomic.Int32
		total [2]int64
		wg    sync.WaitGroup
		data  struct {
			_ [64]byte
			n int64
			_ [56]byte
		}
	)
	wg.Add(2)
	for w := range 2 {
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for range n {
				for turn.Load() != int32(w) {
				}
				t0 := clock.Now()
				mu.Lock()
				data.n++
				mu.Unlock()
				total[w] += clock.Now() - t0
				turn.Store(int32(1 - w))
			}
		}()
	}
	wg.Wait()
	var same int64
	for range n {
		t0 := clock.Now()
		mu.Lock()
		data.n++
		mu.Unlock()
		same += clock.Now() - t0
	}
	return max(float64(total[0]+total[1])/float64(2*n)-float64(same)/float64(n), 0)
}

// chanIters is how many indices a channel measurement sends and
// receives.
const chanIters = 100_000

// measureChan returns the time per send into a buffered channel by one
// goroutine and the time per receive of t goroutines draining it at
// once, each the best of three rounds (see MeasureOverheads).
func measureChan(ctx context.Context, t int) (sendNs, recvNs float64, err error) {
	bestSend, bestRecv := time.Duration(1<<63-1), time.Duration(1<<63-1)
	spin.Team(t, spin.WarmNs)
	for r := 0; r < 3; r++ {
		if ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		s, rv := chanOnce(chanIters, t)
		bestSend, bestRecv = min(bestSend, s), min(bestRecv, rv)
	}
	return float64(bestSend) / chanIters, float64(bestRecv) * float64(t) / chanIters, nil
}

// chanOnce fills a buffered channel with n indices and drains it with t
// goroutines, and returns how long the sends and the draining took.
func chanOnce(n, t int) (send, recv time.Duration) {
	jobs := make(chan int, n)
	start := clock.Now()
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	send = time.Duration(clock.Now() - start)
	var wg sync.WaitGroup
	var sink atomic.Int64
	start = clock.Now()
	wg.Add(t)
	for w := 0; w < t; w++ {
		go func() {
			defer wg.Done()
			var k int64
			for i := range jobs {
				k += int64(i)
			}
			sink.Add(k)
		}()
	}
	wg.Wait()
	return send, time.Duration(clock.Now() - start)
}

// spawnLoop starts n goroutines that each compute for task ns
// (computeTask), as par.For's spawn does (one wg.Add, then a go statement
// per task), waits for all of them to end, and returns the spawner's
// time per go statement. The other cores meanwhile run the tasks they
// steal from the spawner's run queue, and with that contention each go
// statement costs more than on an idle machine (two to three times as
// much as for empty goroutines).
//
// The tasks compute rather than spin on the clock because a program's
// do, and goroutines whose tasks compute cost the cores more beyond
// their tasks than goroutines whose tasks spin for as long.
func spawnLoop(n int, task int64) (perGo float64) {
	var wg sync.WaitGroup
	var sink atomic.Int64
	wg.Add(n)
	t0 := clock.Now()
	for i := 0; i < n; i++ {
		go func() {
			computeTask(task, i, &sink)
			wg.Done()
		}()
	}
	t1 := clock.Now()
	wg.Wait()
	return float64(t1-t0) / float64(n)
}

// spawnRunLoop runs par.For's spawn over n tasks that each compute for
// task ns (computeTask), on every P, and returns the wall time per
// goroutine. The run cost is timed on the construct whose loops ff's
// spawn schedule predicts: each of par.For's goroutines also defers its
// WaitGroup's Done and a recover, and clears the vector registers'
// upper halves (fpu.ClearUpper), before the task, which a bare go
// statement (spawnLoop) does not.
func spawnRunLoop(n int, task int64) float64 {
	var sink atomic.Int64
	t0 := clock.Now()
	par.For(n, runtime.GOMAXPROCS(0), par.Schedule{Policy: par.Spawn}, func(i int) { computeTask(task, i, &sink) })
	return float64(clock.Now()-t0) / float64(n)
}

// measureSpawn returns SpawnNs: the median of spawnTrials spawnLoop
// trials of spawnPerTrial goroutines of spawnTaskNs, every core awake
// before each.
func measureSpawn(ctx context.Context) (float64, error) {
	t := runtime.GOMAXPROCS(0)
	xs := make([]float64, spawnTrials)
	for i := range xs {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		// Every core awake, as in a program that computes.
		spin.Team(t, spin.WarmNs)
		xs[i] = spawnLoop(spawnPerTrial, spawnTaskNs)
	}
	return robust.Median(xs), nil
}

// measureSpawnCosts measures SpawnNs (measureSpawn) and then, beyond
// it, SpawnRunNs (measureSpawnRun) at a task length long enough that
// the cores limit the loop (spawnRunTask), and again at a short one
// that still keeps the cores busy (spawnRunShort): SpawnRunSlope is the
// line through the two (at least 0), and 0 where the short task is not
// under half the long one (a machine of many cores, whose spawner
// outruns them only with long tasks).
func measureSpawnCosts(ctx context.Context) (spawnCosts, error) {
	spawnNs, err := measureSpawn(ctx)
	if err != nil {
		return spawnCosts{}, err
	}
	t := runtime.GOMAXPROCS(0)
	long := spawnRunTask(t, spawnNs)
	c := spawnCosts{spawnNs: spawnNs}
	if c.runNs, c.taskNs, err = measureSpawnRun(ctx, spawnNs, long); err != nil {
		return spawnCosts{}, err
	}
	c.shortTaskNs = c.taskNs
	if short := spawnRunShort(t, spawnNs); 2*short <= long {
		r, shortNs, err := measureSpawnRun(ctx, spawnNs, short)
		if err != nil {
			return spawnCosts{}, err
		}
		if c.taskNs > shortNs {
			c.slope = max((c.runNs-r)/(c.taskNs-shortNs), 0)
			c.shortTaskNs = shortNs
		}
	}
	if c.hotNs, c.hotTaskNs, err = measureSpawnHot(ctx, spawnNs); err != nil {
		return spawnCosts{}, err
	}
	return c, nil
}

// Hot-start measurement: measureSpawnHot times spawn loops at
// spawnHotPoints task lengths evenly up to the one at which the other
// cores, at no cost beyond their tasks, would just keep up with the
// spawner; a loop is past the turn once its wall time per goroutine
// exceeds the least of the shorter loops' by more than spawnHotRise.
const (
	spawnHotPoints = 6
	spawnHotRise   = 1.15
)

// measureSpawnHot returns SpawnRunHotNs and SpawnRunHotTaskNs: what a
// spawned goroutine costs the core that runs it beyond its task while
// the cores keep up with the spawner, and the longest task with which
// they did. Below that task a par.For spawn loop goes at the spawner's
// pace, a wall time per goroutine that the task's length does not
// change (tasks so short that the other cores run out of work and must
// be woken cost the spawner a little more); past it the wall time rises
// with the task, steeply at first, as the goroutines that the cores do
// not take at once pile up in the run queue and each costs more to run.
// It times spawnRunTrials loops of spawnRunPerTrial goroutines (the
// median counts) at spawnHotPoints task lengths evenly up to (t−1)
// spawnNs, finds the lowest wall time among the shortest half and then
// the last length, from there on, whose loops stay within spawnHotRise
// of it: the turn. There the t−1 other cores take a goroutine as fast as
// the spawner makes t−1 of them, so the hot cost is (t−1)·spawnNs less
// the task's own length (at least 0), which puts ff's turn where the
// loops' is. With one core (or no spawn cost) it returns zeros: no hot
// start.
func measureSpawnHot(ctx context.Context, spawnNs float64) (hotNs, hotTaskNs float64, err error) {
	t := runtime.GOMAXPROCS(0)
	top := float64(t-1) * spawnNs
	if t < 2 || !(top >= spawnHotPoints) {
		return 0, 0, nil
	}
	walls := make([]float64, spawnHotPoints)
	owns := make([]float64, spawnHotPoints)
	for j := range walls {
		ws, ts, err := timeSpawnRuns(ctx, int64(top*float64(j+1)/spawnHotPoints))
		if err != nil {
			return 0, 0, err
		}
		walls[j], owns[j] = robust.Median(ws), robust.Median(ts)
	}
	hotNs, hotTaskNs = hotTurn(walls, owns, top)
	return hotNs, hotTaskNs, nil
}

// hotTurn finds measureSpawnHot's turn in walls, the wall times per
// goroutine of loops of tasks that take owns, and returns the hot cost
// top − the turn's task (at least 0) and that task.
func hotTurn(walls, owns []float64, top float64) (hotNs, hotTaskNs float64) {
	low := 0
	for j := 1; j < (len(walls)+1)/2; j++ {
		if walls[j] < walls[low] {
			low = j
		}
	}
	turn := low
	for j := low + 1; j < len(walls) && walls[j] <= spawnHotRise*walls[low]; j++ {
		turn = j
	}
	return max(top-owns[turn], 0), owns[turn]
}

// timeSpawnRuns times spawnRunTrials par.For spawn loops of
// spawnRunPerTrial goroutines of task ns (spawnRunLoop), each after
// timing the task alone (ownTaskNs) and waking every core, and returns
// the loops' wall times per goroutine and the task's own times, trial
// by trial.
func timeSpawnRuns(ctx context.Context, task int64) (walls, owns []float64, err error) {
	t := runtime.GOMAXPROCS(0)
	for i := 0; i < spawnRunTrials; i++ {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		owns = append(owns, ownTaskNs(task))
		spin.Team(t, spin.WarmNs)
		walls = append(walls, spawnRunLoop(spawnRunPerTrial, task))
	}
	return walls, owns, nil
}

// ownTaskNs times ownTaskTasks computing tasks of task ns run one
// after the other: the task's own length.
func ownTaskNs(task int64) float64 {
	var sink atomic.Int64
	t0 := clock.Now()
	for j := 0; j < ownTaskTasks; j++ {
		computeTask(task, j, &sink)
	}
	return float64(clock.Now()-t0) / ownTaskTasks
}

// measureSpawnRun returns what running a spawned goroutine of a task
// of task ns costs the core that runs it beyond its task
// (Overheads.SpawnRunNs at that length), given the spawner's cost per
// go statement spawnNs. It times par.For spawn loops (spawnRunLoop) of
// tasks long enough that the t cores, not the spawner, limit them
// (spawnRunTask, spawnRunShort) and stay busy to the end: the wall time
// per goroutine W is then (spawnNs + task + run)/t, so run = t·W − task
// − spawnNs, with the task's length as a serial loop of it measures it.
// Each loop spawns spawnRunPerTrial goroutines, most of which wait in
// the run queue, each with a stack of its own, as in a real spawn loop
// whose spawner outruns the cores (loops of a few thousand goroutines
// measure less: see docs/measurements.md). It returns the median of
// spawnRunTrials loops, at least 1 ns, and the median of the task's
// own times, the length it was measured at: a computed task of task ns
// takes what spin.Work's rate, measured when the program started, makes
// of it, which can be a quarter off (see spin.WorkScale), and ff reads
// the cost against the recorded lengths of the program's tasks.
func measureSpawnRun(ctx context.Context, spawnNs float64, task int64) (run, taskNs float64, err error) {
	walls, owns, err := timeSpawnRuns(ctx, task)
	if err != nil {
		return 0, 0, err
	}
	t := float64(runtime.GOMAXPROCS(0))
	runs := make([]float64, len(walls))
	for i, w := range walls {
		runs[i] = t*w - owns[i] - spawnNs
	}
	// At least 1 ns: a profile that leaves it out (0) was saved before
	// it was measured, and reads Default's.
	return max(robust.Median(runs), 1), robust.Median(owns), nil
}

// spawnRunTask returns the task length (ns) of measureSpawnRun's loops
// on t cores: at least 2 µs, and long enough that t−1 cores running
// tasks take them more slowly than a spawner spends spawnNs on each
// (four times over), so that the spawner never starves the cores.
func spawnRunTask(t int, spawnNs float64) int64 {
	return max(2000, int64(4*float64(t)*max(spawnNs, 0)))
}

// spawnRunShort returns the short task length (ns) of measureSpawnCosts
// on t cores: at least spawnRunShortNs, and as long as the t−1 cores
// running tasks need, without the cost of starting each, to take them no
// faster than a spawner spends spawnNs on each.
func spawnRunShort(t int, spawnNs float64) int64 {
	return max(spawnRunShortNs, int64(float64(t-1)*max(spawnNs, 0)))
}

// lockLoop returns the time per uncontended Lock and Unlock pair.
func lockLoop(n int) float64 {
	var mu sync.Mutex
	t0 := clock.Now()
	for i := 0; i < n; i++ {
		mu.Lock()
		mu.Unlock() //nolint:staticcheck // an empty critical section is the point
	}
	return float64(clock.Now()-t0) / float64(n)
}

func measureLock(ctx context.Context) (float64, error) {
	best := 0.0
	for r := 0; r < 3; r++ {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		x := lockLoop(lockIters)
		if r == 0 || x < best {
			best = x
		}
	}
	return best, nil
}

// measureLockLocal measures LockLocalNs (see Overheads): the median over
// lockLocalPairs interleaved pairs of loops of lockLocalTasks computed
// tasks, one with a Lock, an increment and an Unlock after each task and
// one with the increment alone, of their difference per task, between
// lockLocalMinNs and lockNs. A Lock's atomics overlap the task's work
// around them; back to back (measureLock) nothing hides their latency.
func measureLockLocal(ctx context.Context, lockNs float64) (float64, error) {
	var l lockLocalLoop
	d := make([]float64, 0, lockLocalPairs)
	for range lockLocalPairs {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		without := l.run(lockLocalTasks, false)
		with := l.run(lockLocalTasks, true)
		d = append(d, with-without)
	}
	return min(max(robust.Median(d), lockLocalMinNs), max(lockNs, lockLocalMinNs)), nil
}

// lockLocalLoop is measureLockLocal's mutex and the counter it guards,
// on a cache line of its own, and the computed tasks' running value.
type lockLocalLoop struct {
	mu sync.Mutex
	_  [64]byte
	n  int64
	_  [56]byte
	x  uint64
}

// run times n computed tasks of lockLocalTaskNs, each followed by an
// increment of l.n, under l.mu where lock is set, and returns the time
// per task.
func (l *lockLocalLoop) run(n int, lock bool) float64 {
	x := l.x
	t0 := clock.Now()
	for i := range n {
		x = spin.Work(lockLocalTaskNs, x+uint64(i))
		if lock {
			l.mu.Lock()
			l.n++
			l.mu.Unlock()
		} else {
			l.n++
		}
	}
	d := clock.Now() - t0
	l.x = x
	return float64(d) / float64(n)
}

// lockLocalTasks, lockLocalTaskNs and lockLocalPairs size
// measureLockLocal: pairs of loops of about 6 ms each; lockLocalMinNs is
// the least it reports, two atomic instructions' retirement.
const (
	lockLocalTasks  = 100_000
	lockLocalTaskNs = 60
	lockLocalPairs  = 7
	lockLocalMinNs  = 0.5
)

// lockSwitchOnce spawns n goroutines that each hold one mutex for hold
// ns and returns the time per critical section beyond hold: with every
// core's goroutines queued for the lock, it passes from one parked
// goroutine to the next, each switched in first.
func lockSwitchOnce(n int, hold int64) float64 {
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(n)
	t0 := clock.Now()
	for i := 0; i < n; i++ {
		go func() {
			mu.Lock()
			spin.For(hold)
			mu.Unlock()
			wg.Done()
		}()
	}
	wg.Wait()
	return max(float64(clock.Now()-t0)/float64(n)-float64(hold), 0)
}

// measureLockSwitch returns the median of three lockSwitchOnce runs of
// 3000 goroutines holding the lock 2 µs each, every core awake first.
func measureLockSwitch(ctx context.Context) (float64, error) {
	t := runtime.GOMAXPROCS(0)
	var xs [3]float64
	for i := range xs {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		spin.Team(t, spin.WarmNs)
		xs[i] = lockSwitchOnce(lockSwitchPerTrial, lockSwitchHoldNs)
	}
	return robust.Quantile(0.5, xs[:]), nil
}

// wakeSection runs one par.For section of two tasks of l spinning each
// with schedule sched (after gap of serial spinning) and returns how late
// the later task started after the section began, at most l: with Spawn
// both tasks are new goroutines, and while the spawner waits its own core
// runs one (the runnext) and an idle core must wake for the other, queued
// behind it: min(W, about l) for a wake-up latency W. With Static the
// caller runs task 0 itself and its one worker waits in the caller's
// runnext slot, which an idle core takes only after backing off:
// min(W+R, about l) for the runnext back-off R. Either way the first core
// runs the other task itself when it is done before the second core is.
func wakeSection(gap, l time.Duration, sched par.Schedule) float64 {
	spin.Wall(int64(gap))
	var s [2]int64 // par.For's return orders the writes before the read
	t0 := clock.Now()
	par.For(2, 2, sched, func(i int) {
		s[i] = clock.Now()
		spin.Wall(int64(l))
	})
	return float64(min(max(s[0], s[1])-t0, int64(l)))
}

// Wake-up measurement: the task lengths of the sections (short ones
// resolve the spread of a latency of tens of microseconds, long ones its
// tail), the sections per length, and the quantiles the emulator samples
// (emulate/ff's default: K = 5 quantiles (k+0.5)/K of a log-normal
// through p50, p90).
var (
	wakeLens    = []time.Duration{10 * time.Microsecond, 30 * time.Microsecond, 100 * time.Microsecond, 300 * time.Microsecond, time.Millisecond, 3 * time.Millisecond}
	runnextLens = []time.Duration{100 * time.Microsecond, 300 * time.Microsecond, time.Millisecond}
)

const (
	wakeReps    = 60
	wakeSamples = 5
)

// wakeModel returns the mean of min(q+r, l) over the wakeSamples
// quantiles q of the log-normal distribution through p50 and p90.
func wakeModel(p50, p90, r, l float64) float64 {
	d := machine.LogNormal(p50, p90)
	var sum float64
	for k := 0; k < wakeSamples; k++ {
		sum += min(d.Quantile((float64(k)+0.5)/wakeSamples)+r, l)
	}
	return sum / wakeSamples
}

// wakeFitErr is the squared error, relative to the task lengths, of
// wakeModel with median p50, 90th percentile p90 and runnext back-off r
// against the measured mean delays.
func wakeFitErr(p50, p90, r float64, lens, delays []float64) float64 {
	var e float64
	for k, l := range lens {
		d := (wakeModel(p50, p90, r, l) - delays[k]) / l
		e += d * d
	}
	return e
}

// fitWake returns the p50 and p90 (p90 > p50) of the log-normal
// wake-up latency whose model best explains the measured mean delays
// (least squares relative to the task lengths), searched on a
// logarithmic grid.
func fitWake(lens, delays []float64) (p50, p90 float64) {
	best := math.Inf(1)
	for i := 0; i <= 60; i++ {
		m := 1e3 * math.Pow(10, float64(i)/15) // 1 µs to 10 ms
		for j := 1; j <= 40; j++ {
			q := m * math.Pow(10, float64(j)/15) // up to 460 × m
			if e := wakeFitErr(m, q, 0, lens, delays); e < best {
				best, p50, p90 = e, m, q
			}
		}
	}
	return p50, p90
}

// fitRunnext returns the runnext back-off r (0 to 1 ms, in steps of
// 0.5 µs) that, added to the wake-up latency of median p50 and 90th
// percentile p90, best explains the measured mean delays (least squares
// relative to the task lengths).
func fitRunnext(p50, p90 float64, lens, delays []float64) float64 {
	best, r := math.Inf(1), 0.0
	for i := 0; i <= 2000; i++ {
		x := float64(i) * 500
		if e := wakeFitErr(p50, p90, x, lens, delays); e < best {
			best, r = e, x
		}
	}
	return r
}

// meanDelays runs wakeReps sections of sched for each task length, with
// 20 µs of serial code between them as a program's loops follow each
// other, and returns the lengths and the mean delays of wakeSection.
// Nothing sleeps in between: after the process has slept, idle cores
// take much longer to start goroutines for a few sections on, which a
// compute-bound program's loops do not see.
func meanDelays(ctx context.Context, sched par.Schedule, lens []time.Duration) (ls, delays []float64, err error) {
	ls = make([]float64, len(lens))
	delays = make([]float64, len(lens))
	for k, l := range lens {
		var sum float64
		for r := 0; r < wakeReps; r++ {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			sum += wakeSection(wakeGap, l, sched)
		}
		ls[k], delays[k] = float64(l), sum/wakeReps
	}
	return ls, delays, nil
}

// measureWake measures how late the second core starts the later task of
// two-task sections, for several task lengths l (min(W, l) for a wake-up
// latency W), and fits the log-normal distribution of W whose median and
// 90th percentile make the fast-forward emulator's model of these
// sections agree best with the measured delays; then, from two-thread
// team sections, whose worker an idle core takes only after the runnext
// back-off R (min(W+R, l)), it fits R. W is not measured directly
// because it depends on how long the woken core has been idle, which in
// a real program depends on W itself (a late worker keeps the other core
// idle longer): a core idle for a few microseconds takes a queued
// goroutine several times sooner than one idle for a millisecond.
//
// It fits the given number of times and returns the median of each of
// the three: a fit is made of means over a third of a second, and where
// something else held the machine for part of that time the fit can be
// far off.
func measureWake(ctx context.Context, fits int) (p50, p90, runnext float64, err error) {
	fits = max(fits, 1)
	p50s, p90s, rs := make([]float64, fits), make([]float64, fits), make([]float64, fits)
	for i := range fits {
		if p50s[i], p90s[i], rs[i], err = fitWakeOnce(ctx); err != nil {
			return 0, 0, 0, err
		}
	}
	return robust.Quantile(0.5, p50s), robust.Quantile(0.5, p90s), robust.Quantile(0.5, rs), nil
}

// wakeRounds is how many times MeasureOverheads fits the wake-up
// latency.
const wakeRounds = 3

// fitWakeOnce is one round of measureWake.
func fitWakeOnce(ctx context.Context) (p50, p90, runnext float64, err error) {
	lens, delays, err := meanDelays(ctx, par.Schedule{Policy: par.Spawn}, wakeLens)
	if err != nil {
		return 0, 0, 0, err
	}
	p50, p90 = fitWake(lens, delays)
	lens, delays, err = meanDelays(ctx, par.Schedule{Policy: par.Static}, runnextLens)
	if err != nil {
		return 0, 0, 0, err
	}
	return p50, p90, fitRunnext(p50, p90, lens, delays), nil
}
