// Package syn is prophet's program-synthesis emulator (the paper's
// section IV-E, figure 8): it predicts the parallel time of a top-level
// section by replaying the section's program tree with real goroutines on
// this machine, so that the Go scheduler, real mutexes and the real costs
// of the parallel constructs are in the prediction instead of modelled.
//
// For a section and a thread count t, the Emulator sets
// runtime.GOMAXPROCS(t) (and restores it afterwards) and replays the
// section through package par with the schedule asked for:
//
//   - the section's tasks are the iterations of one par.ForWorker loop of
//     t workers (or one goroutine per task for spawn);
//   - U nodes are spin delays (internal/spin) of length × β_t that touch
//     no memory; L nodes are the same inside a real sync.Mutex, one per
//     lock id, each hold then writing the data its lock guards: a fixed
//     line, or for an indexed critical section (tree.Node.Indexed) one
//     of eight lines picked once the lock is held;
//   - a nested section is replayed by recursion with the same schedule
//     and thread count, forming its own team as par.For does;
//   - U children of a section that come before its first task are run by
//     the goroutine that entered the section before the loop, the other
//     non-task children after it (par has no serial code between
//     iterations); sections are always joined (par has no nowait).
//
// The wall time of each replay, less the tree-walking cost no spin
// absorbed, is one measurement. The walking cost is the paper's
// OVERHEAD_ACCESS_NODE and OVERHEAD_RECURSIVE_CALL (machine.Walk: NodeNs
// per node visited, CallNs per nested section entered), counted per
// worker. The paper subtracts it after the replay, taking a team's cost
// as its most loaded worker's; that undercounts it when the workers ran
// one after the other on one core, as a two-thread team's do in a short
// section whose second worker starts late, which made LU's replay come
// out slow. So each worker keeps its drift, how far its replay is behind
// the recorded lengths, and every U spin makes it up: it spins its
// length less the drift and less the spin delay's own cost
// (machine.Walk.SpinNs, the clock reads that start and end it), and a
// leaf too short to spin at all puts the worker ahead by its length,
// which the next spin makes up. A critical section's spin is shortened
// by the spin's cost only, so that the lock is held as long as
// recorded. What no spin could absorb (a task of locks only, the end of
// a section) is subtracted afterwards by the paper's rule: a team's
// residue is its most loaded worker's, or the team's total divided by t
// when that is larger (more goroutines than cores, as with spawn), and
// it goes to the worker that entered the team.
//
// The walking cost per node is measured on each section itself before
// its replays (unless Options.FixedWalk): its first tasks, up to 5 ms of
// work, replayed at one thread with the spins shortened by their cost,
// give the time per node beyond their work and beyond par's call of the
// loop body for each task (machine.Overheads.TaskCallNs, which the
// program pays too and the replays keep; where they visit too few nodes
// for that, the section keeps the machine's costs). A cost
// measured once on another tree's shape fits fine-grained sections
// badly: how far a spin overshoots depends on its length against the
// clock's step, and a section of many distinct tasks reaches the plan's
// memory more often than a run of identical ones. Each spin's request
// is also dithered over about a clock read's step, so that leaves of
// one length overshoot by the spin's mean cost, not all by the same
// part of a clock read. A task's first and last leaves compute
// (spin.Work) instead of spinning; Work does a fixed amount of
// computation at the rate measured when the program started, which on a
// virtual machine can lie a third off the core's speed later, so before
// its replays the Emulator measures that factor (spin.WorkScale) and
// scales the computed leaves' requests by it.
//
// The Emulator wakes the cores up (t goroutines spin for spin.WarmNs: on
// a virtual machine a core that has been idle for a while is slow to
// wake for some milliseconds), warms up with one untimed replay,
// measures Options.Repeats times and reports the chosen statistic (median by default) with the relative spread
// IQR/median. Through emulate.Predict (Emulator.Sections) the replays of
// a program's sections go in rounds, every section once per round in
// program order, so that a burst of other load on the machine slows one
// replay of many sections (which the statistic discards) rather than
// every replay of one section (which it cannot).
//
// It also records the busy time (the recorded lengths of the leaves and
// critical sections replayed, summed over all goroutines) of each
// replay: emulate.Section.BusyNs is that busy time
// and IdleNs = t·T_P − BusyNs, the idle time I_P of the factored-speedup
// analysis (work-inflation paper, section 2), which counts waiting at
// barriers, for locks, for work and the constructs' own costs.
//
// The synthesizer only predicts thread counts up to this machine's cores;
// asked for more it returns an error that matches ErrTooManyThreads.
package syn
