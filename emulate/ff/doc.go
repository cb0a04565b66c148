// Package ff is prophet's fast-forward emulator (the paper's section
// IV-C): a discrete-event emulation of the program tree on an abstract
// machine of t cores, driven by a priority heap of
// events. It predicts the parallel time of each top-level section for any
// thread count and schedule, including more cores than the machine at
// hand, without running anything in parallel.
//
// # Model
//
// A section emulated at t threads runs on t cores (GOMAXPROCS = t) with
// the par contract's goroutines:
//
//   - Worksharing schedules (static, static:C, dynamic:C, guided:C): the
//     goroutine that reaches the section forks a team of min(t, tasks)
//     workers; it is worker 0 and the others are new goroutines. static
//     and static:C assign chunks exactly as par.Schedule.StaticChunks;
//     dynamic and guided hand the next chunk (par.Schedule.GuidedChunk
//     for guided) to the first worker that asks, in time order. Worker 0
//     waits at the end for the others (the implicit barrier) unless the
//     section is nowait. A team of one runs the loop inline: no fork,
//     join or chunk costs.
//   - pool (Go's worker pool): a worksharing team whose workers take one
//     task at a time, as from a buffered channel: the encountering
//     goroutine first sends every task's index (ChanSendNs each), and
//     every receive costs ChanRecvNs (a lone worker's too).
//   - spawn: the goroutine that reaches the section starts one goroutine
//     per task, in order (the section's own U nodes run between the
//     spawns, where they were), then waits for all of them.
//   - errgroup (errgroup.Group with SetLimit(t)): spawn, each spawn also
//     taking the group's semaphore (ChanSendNs), with at most t spawned
//     goroutines running: the spawner waits for a slot, and the first
//     to end hands it its core.
//
// The schedules live in schedule.go, one type each behind one
// interface; the engine (engine.go) knows them only through it.
//   - Cores are shared greedily, as Go's scheduler does: an idle core runs
//     any runnable goroutine; a goroutine blocked at a join or waiting for
//     a lock frees its core (Go parks it); runnable goroutines wait in one
//     FIFO queue, except that a goroutine resumed from a join or handed a
//     lock goes first (Go readies it into runnext). Nested sections fork
//     their own team (paper Fig. 6), whose extra workers compete for the
//     same t cores; with spawn, nested tasks join the same pool, so the
//     paper's Fig. 7 tree comes out at its real speedup of 2.0.
//   - A goroutine runs each U or L node to its end once it has started it
//     (no preemption inside a leaf: Go preempts every 10 ms, and a leaf
//     rarely yields its core to a goroutine of equal standing anyway).
//   - Locks: an L node requests its lock when its goroutine reaches it and
//     gets it at once if the lock is free; otherwise the goroutine parks
//     (its core is free for others) and queues. With zero overheads the
//     lock is an ideal FIFO lock: it passes to the next waiter, by request
//     time, exactly when the holder's L ends. With overheads, it follows
//     sync.Mutex (see Overheads below): a waiter whose lock came free
//     within the spin window (machine.Overheads.LockSpin, which reaches
//     the last check) is still spinning on its core,
//     checking the lock four times over the window at fixed steps from
//     its request (and, where it asked from another core than the
//     lock's last one, once as its compare-and-swap lands, a cache-line
//     move after the request: an Unlock before then is seen at once),
//     and the spinner whose check comes first takes it then
//     (a spinner that finds it taken again keeps counting its checks,
//     and parks once they are used up); one that parked is only woken by
//     the Unlock. Either way the lock is free for anybody (barging) until
//     the waiter looks again, and the waiter tries again then; after
//     StarvationNs of waiting in all, the mutex starves and hands the
//     lock over directly.
//   - Top-level nowait: worker 0 goes on without waiting, and the
//     section's time is when its last goroutine ends (there is no state
//     across top-level sections). A nested nowait section likewise lets
//     its encountering goroutine go on; its workers still count for the
//     top-level section's end.
//   - The section's own U nodes (outside its tasks) that come before the
//     first task run on the encountering goroutine before the fork; the
//     others run on worker 0 after the fork (with spawn: where they are,
//     between the spawns).
//
// Every U and L length is multiplied by the section's burden factor.
//
// # Overheads
//
// emulate.Options.Overheads (from the machine profile, see
// calibrate.MeasureOverheads) are charged as follows; a zero Overheads
// gives the ideal schedule exactly:
//
//   - ForkNs on the encountering goroutine before its team's workers
//     become runnable (teams of two or more);
//   - JoinNs once per section with a barrier, on worker 0 when it goes
//     past the barrier (right away, or when the last worker wakes it);
//   - ChunkNs on the fetching worker after every dynamic or guided chunk
//     it gets (teams of two or more), and ChunkMigrateNs on top when the
//     team's last fetch was made on another core (the counter's cache
//     line moves over: workers of short tasks take turns at the counter
//     and pay it at nearly every fetch). The counter serves one fetch
//     at a time: a fetch that moves its line takes it for ChunkServeNs
//     (Overheads.ChunkServe), and a fetch from another worker waits for
//     it meanwhile, so a team of short tasks takes at most one chunk
//     per ChunkServeNs however many workers it has. A worker that asks
//     again soon after its last fetch, sooner than the short end's reach
//     (Overheads.ChunkMigrateFor, ChunkShortEndNs), pays less for the
//     move and holds the counter for less, in proportion to how soon
//     it asks: on a machine whose cores move lines slowly, workers of
//     short tasks take several fetches per move;
//   - TaskCallNs at the start of every task of a static, dynamic,
//     guided or pool schedule (teams of one included), added to each
//     task's first leaf in the section's compact copy (calledFrom): the
//     call of the loop body through a function value, where the serial
//     loop ran it inline (spawn and errgroup share that copy, their
//     SpawnRunNs less the call, since a goroutine's start holds its
//     call);
//   - SpawnNs on the spawner before each spawned goroutine is runnable,
//     and SpawnRunNs on the core that takes it before it starts its
//     task (taking it from the spawner's queue, switching to it, its
//     exit and the WaitGroup's Done), less for a section of short tasks
//     on two threads or more (Overheads.SpawnRunFor of the section's
//     mean task), and least, the hot start, for tasks so short that the
//     cores keep up with the spawner and run each goroutine soon after
//     it is made;
//   - LockNs per L node, inside the critical section (on one thread
//     LockLocalNs, where measured: with no other core at the lock, its
//     atomics overlap the task's work), and LockMigrateNs
//     when the lock was last taken on another core (its cache line
//     moves over; a loop of short critical sections on several cores
//     pays it at nearly every Lock): with sync.Mutex's behaviour
//     (LockHandoffNs > 0), before the hold, as the Lock's
//     compare-and-swap in flight, its goroutine waiting on its core,
//     the lock free for anybody meanwhile (a Lock on the core that has
//     the line takes it first), and the lock taken as it lands if it is
//     still free (state.flies); for an indexed critical section
//     (tree.Node.Indexed), whose data's line comes only once the lock
//     is held, half of it in flight and half inside the hold
//     (state.flightNs, hold by hold); on the ideal lock, inside the hold;
//     and a share m/(m+2) of it
//     more when m other goroutines wait for the lock on cores of their
//     own (crowdShare: the waiters pull the line away), that share
//     alone for a Lock on the core that took it last; and
//     LockMigrateNs once more at the Unlock of a hold during which a
//     Lock came from another core while another waiter already spun
//     (the waiters' Locks and checks took the line from the holder's
//     core, and the Unlock brings it back; state.steal);
//   - lock wake-ups (a waiter that parked runs long after the Unlock
//     that wakes it, so that under contention the unlocker mostly takes
//     the lock again first): the Unlock of a lock with waiters wakes the
//     first one, which, if it waited past the spin window, is made
//     ready at the front of the ready queue (Go's runnext) with a core
//     woken for it that becomes available a hand-off latency later
//     (unless a busy core frees up first); the lock stays free
//     meanwhile, and the unlocker pays LockWakeNs (Go's Unlock wakes the
//     waiter's thread before it returns: a futex wake, which also shifts
//     the unlocker against the waiters and so helps a convoy of
//     hand-offs break up, as real ones do).
//     With LockSwitchNs, a waiter whose core has other goroutines
//     waiting (more than the cores being woken for them) parks at once
//     instead of spinning, as sync.Mutex does (runtime_canSpin), and
//     must be switched in (LockSwitchNs) before it goes on: woken by a
//     normal-mode Unlock, it is switched in on the core that takes it
//     and then tries the lock, which anybody may take meanwhile (a
//     woken waiter does not own a sync.Mutex); handed the lock directly
//     (a starving mutex), it is switched in while nobody uses the lock,
//     so that a spawn of many small tasks on one lock, which starves
//     it, is bound by hold plus switch per task. A waiter that parked
//     after spinning, its thread asleep, pays the hand-off latency
//     instead, which covers its switch.
//     When the waiter runs, it takes the lock if it is free,
//     else it queues again at the front (Go queues a waiter that waited
//     before LIFO) and parks. The hand-off latency has median
//     Overheads.HandoffFor(wait): the doze's LockDozeHandoffNs for a
//     waiter that had waited up to LockDozeNs when the Unlock came (its
//     idle core had not gone to a deep sleep yet), LockHandoffNs from
//     LockDozeNs+LockDozeRampNs on, linearly in between; the Unlock that
//     wakes it costs the unlocker the doze's LockDozeWakeNs or
//     LockWakeNs alike. Its spread is LockHandoffP90Ns's, or the
//     wake-up latency's where the profile has none: a run's first
//     hand-off takes the run's wake-up quantile (see below), each next
//     one the quantile 1/φ further on, modulo 1,
//     so that the hand-offs of one run spread over the distribution as
//     real ones do (one latency at every hand-off can lock a contended
//     loop into a rhythm real noise breaks); for waits between
//     LockSpinNs and LockSpinNs+LockSpinRampNs it ramps up linearly from
//     zero, as the share of waiters already asleep does (calibrate
//     measures both), keeping predictions continuous. Once a waiter
//     has waited StarvationNs in all, the mutex starves: the next Unlock hands it the lock
//     directly, at no cost, and yields the unlocker's core to it (Go's
//     Unlock readies the waiter into its P's runnext and yields): the
//     unlocker goes to the back of the ready queue with the rest of its
//     work, and an idle core, if any, is woken for it (wake-up latency);
//     this lasts until a waiter that waited less, or the last one, gets
//     the lock. With
//     LockHandoffNs = 0 the lock is the ideal FIFO lock;
//   - wake-up latency: a new goroutine (a team worker or a spawned task)
//     that finds an idle core makes that core available only after a
//     wake-up latency W, unless a busy core frees up earlier and takes it
//     (exactly what happens in Go when the idle P's thread sleeps in the
//     kernel: on a VM, waking it often takes longer than the first task).
//     With WakeStepNs, one such wake-up is in flight at a time, as Go
//     wakes one idle P's thread only where no other is spinning: the
//     woken core, once it takes a goroutine, wakes the next idle core
//     for the goroutines still queued, WakeStepNs later, so a team's
//     workers start one after another (state.wakeIdle, chainOn);
//   - runnext back-off: the goroutine a running goroutine made ready
//     last waits in its core's runnext slot (Go's newproc puts it
//     there), and a woken core that finds only it in the ready queue
//     backs off RunnextNs before taking it, as Go's work stealing does
//     (runqgrab sleeps 3 µs first, which a VM's timer slack stretches
//     to tens of microseconds);
//     the slot's own core takes it first if it frees up meanwhile, and
//     the pin ends when that core starts or readies another goroutine.
//     Goroutines queued behind it (a team of three or more, a spawner's
//     earlier tasks) are taken at once.
//     W is not a constant: Overheads gives its median WakeP50Ns and 90th
//     percentile WakeP90Ns. The emulator fits a log-normal distribution
//     through them and emulates each section once for each of K
//     quantiles of it ((k+0.5)/K; with the default K = 5: the 10th to
//     90th percentiles, the measured p50 and p90 among them), then
//     averages the predicted times: the expected time when all wake-ups
//     of one run are alike. The quantiles are rounded to 1/4096 ns (see
//     Speed). This is deterministic; a section in which no core is ever
//     woken is emulated only once. A program that runs one section many
//     times (Emulator.Sections, which emulate.Predict calls) spreads the
//     samples over those runs instead, one sample per run, in turn: the
//     total is the same expected time, at a K-th of the cost.
//   - noise: a core running a goroutine loses it now and then for a
//     moment while the others run on (timer interrupts, the hypervisor;
//     Overheads.NoiseHz, NoiseP50Ns, NoiseP90Ns; a moment in which every
//     core stops at once delays no goroutine against another and is
//     not in them). The recorded lengths
//     carry that on average, but a hiccup while a lock is held holds up
//     every waiter: a contended loop whose requests come just after
//     each release runs collision-free in an emulation without noise
//     forever, while a real run is thrown into a convoy of hand-offs by
//     its first hiccup in a hold (docs/measurements.md has a sample that
//     does so in three runs of eight). So every lock hold
//     is scaled down by the noise's mean share and then gets the hiccups
//     that fall in it, one per 1/NoiseHz seconds of hold time counted
//     over the run, their lengths successive quantiles of the log-normal
//     through NoiseP50Ns and NoiseP90Ns, each 1/φ on from the one before,
//     starting at the run's wake-up quantile (state.noisy). Hiccups
//     outside locks delay only their own goroutine and are not emulated.
//
// # Speed
//
// A goroutine runs its U nodes, and its L nodes whose lock is free, without
// touching the heap (state.walk); only interaction points that other
// goroutines could see first (a lock request, fork, chunk fetch, spawn,
// join or end at a time when another event is pending earlier) go
// through it. The heap (events.go) holds small events without pointers and
// is driven without interface calls; a goroutine that ends or blocks
// hands its heap slot to the goroutine its core starts next.
//
// Runs of identical tasks are not expanded where the schedule allows:
//
//   - tasks of only U nodes advance a worker by count × length in one
//     step wherever the schedule gives it several in a row, a worker's
//     static:C chunks of one run included (batchPure); when the workers
//     of a dynamic:C team take chunks of such a run, all of them advance
//     by whole rounds of one chunk each in one step (lockstepPure): the
//     chunks are alike, so which worker gets which does not matter, and
//     a round lasts a chunk's period, or one serving time of the
//     counter per worker where they queue at it (counterRounds); with
//     spawn, once the spawner waits at the join, the cores draining
//     spawned goroutines of such tasks from the ready queue advance by
//     whole rounds of one goroutine each in one step (lockstepSpawnPure);
//   - tasks of U nodes, one L and U nodes (state.batch) run in closed form
//     while the worker is the only goroutine that acts before the next
//     pending event: a static block, a worker's static:C chunks of one
//     run, consecutive dynamic:C chunks (batchStatic, batchDynamic);
//   - when several workers (or, with spawn, several cores taking spawned
//     goroutines from the ready queue) run such tasks on one lock at
//     once, lockstep (lockstep.go) advances them all by whole rounds when
//     their lock requests in one round are a hold time apart, so that
//     none waits: each round is the previous one shifted by a task's
//     length;
//   - with spawn, the spawner spawns the tasks of such a run in one step
//     while no core is idle and nothing else is pending (spawnRun), and
//     past the next event while the queue holds enough pure tasks for
//     every other core until then (spawnAhead), so that lockstepSpawnPure
//     can drain it in rounds meanwhile: the
//     spawned goroutines wait in the ready queue as one entry, made one
//     by one as cores take them, or never made at all when lockstep runs
//     them. Every spawned task waits in such an entry (readyEntry, a few
//     words in the queue's ring), not as a goroutine, until a core takes
//     it, and the tasks of one run share the last entry whether spawnRun
//     or single spawns queued them: a spawner that outruns the cores
//     queues an entry per run, not per task (as goroutines scattered over
//     the heap, taking each was a cache miss: BenchmarkMixed/spawn went
//     from 9.9 to 18 million emulated nodes per second);
//   - with spawn, where the machine comes back to the same state at a
//     spawn, whole cycles or periods of it are added at once (cycle.go:
//     spawnCycle, spawnPeriod); where it does not (the wake-ups of idle
//     cores at 4 to 16 threads), but the spawner sets the pace, whole
//     windows of its spawns are (skip.go: spawnSkip), and on across the
//     runs of a recording's loop split by struck tasks (skipAcross);
//   - a worker (or core) whose task was longer than its neighbours' waits
//     outside the rounds of lockstepPure and lockstepSpawnPure, as any
//     other event, instead of stopping them until it is back in phase;
//   - a wake-up sample whose wake-ups all came too late to matter (each
//     found no goroutine waiting for a core, and none became ready after
//     the first) stands for every longer latency, which then is not
//     emulated (sectionRun.inert).
//
// With noise (Overheads.NoiseHz > 0), the closed forms of tasks with an
// L (batch, batchDynamic, lockstep, lockstepSpawn) take at once only as
// many holds as bring no hiccup (state.quietHolds: the noise's position
// is kept in whole grid units, so that it adds up exactly), and a sample
// with hiccups does not stand for others.
//
// These shortcuts, but spawnSkip, give exactly, bit for bit, what the
// node-by-node emulation gives (TestShortcutsExact, TestSpawnCycles);
// spawnSkip leaves the cores' wake-ups in the phases of the state before
// a skip, which moves a section's end by at most a wake-up
// (TestSpawnSkipError), and its busy time not at all. The closed forms are used only
// when every time involved is a multiple of 1/4096 ns below about 36
// minutes, where float64 sums are exact. Tree lengths are whole
// nanoseconds; the emulator rounds the wake-up latencies, a machine
// profile's overheads (prophet calibrate measures fractions of a
// nanosecond) and the burden factor to that grid, which moves the
// predictions by 0.003% on average (TestWakeRounding). With an
// Emulator's rounding off (tests only), times off the grid make the
// engine fall back to walking every task, which gives the same answers
// more slowly. Goroutines, frames, locks and tables are recycled within
// a call and, for an Emulator made by New, from one call to the next;
// Clone gives emulate.RunSweep one Emulator per goroutine.
//
// The engine does not walk tree.Node values: each section is first
// copied into a compact form (prog.go: 16-byte nodes, the children of a
// node next to each other, lock ids numbered densely, shared subtrees
// copied once), because walking a large tree is bound by memory traffic
// (a tree.Node is 144 bytes and the builder scatters children across the
// heap). An Emulator made by New keeps these copies (up to 2^23 nodes,
// 128 MiB) for the sections it has emulated, shared with its clones, so
// the 25 to 125 emulations of one prediction grid copy each section
// once.
//
// # Timeline
//
// Emulator.Timeline and Emulator.Trace record the schedule as
// emulate.Span values, one row per core (goroutines migrate between
// cores as Go's do): a span per U or L node run (a run of identical
// tasks done in one step is one span), per overhead charged, per lock
// wait (on the core the waiting goroutine left, while that core has
// nothing else to do) and per idle stretch. report.WriteTrace writes them
// as Chrome trace-event JSON.
//
// # Budget
//
// An emulation counts its steps (an event taken from the heap, a turn
// of a goroutine's loop over its frames, a node walked past) and spends
// them, 1,024 at a time, from emulate.Options.Budget, which all the
// emulations of a sweep share; once it is spent, the emulation stops
// with an error matching emulate.ErrOverBudget. The count is what the
// emulation does, shortcuts included, so a regular loop that the closed
// forms take in a few steps costs a few steps, whatever its task count.
//
// Memory is bounded likewise: an emulation holds at most MaxGoroutines
// goroutines at once, and one that would hold more stops with an error
// matching emulate.ErrTooLarge. What it holds otherwise follows the
// compact tree and its runs, whatever the task count, but for the
// goroutines themselves: a goroutine per task keeps one for every task
// parked at a lock (a spawn loop of short tasks on a lock parks nearly
// all of them, its spawner outrunning the lock), and one for every task
// a core has taken from the ready queue.
package ff
