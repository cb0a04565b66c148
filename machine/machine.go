// Package machine holds the machine profile: what prophet knows about the
// machine a parallel program would run on. `prophet calibrate` measures it
// and writes it as JSON; the emulators read its runtime overheads and
// synthesizer walk costs, and the memory model reads its memory fits.
//
// A zero Profile is not useful; start from Default, which carries
// documented default overheads, and replace what calibration measured.
package machine

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
)

// FormatVersion is the version of the machine profile JSON layout and
// of the methods that measure it. Version 2 measures ChunkNs beside
// short tasks (version 1: between empty iterations, several times what a
// fetch costs a loop with work in it), SpawnNs beside short tasks
// (version 1: beside 5 µs tasks, thousands of goroutines waiting, where a
// go statement costs more than where the cores keep up with the
// spawner) and times its harnesses' tasks with spin delays on the
// time-stamp counter, the chunk costs' tasks starting only once their
// fetch has completed. Version 3 measures the chunk costs beside tasks
// that compute on their index (spin.Work) instead of spinning, which
// pay a fetch in full where a spin hides part of it. Version 4 adds
// TaskCallNs. Version 5 measures LockHandoffNs as the median hand-off
// after waits of a millisecond or more and adds its spread and the doze
// (version 4: the 90th percentile after waits of 200 µs, at the switch
// between the two), and measures the noise as the part of a core's
// hiccups that another core runs through (version 4: every hiccup,
// most of which stop every core of a VM at once). A profile of another
// version has costs that are not the ones this prophet charges, and
// Load refuses it.
const FormatVersion = 5

// Profile describes one machine.
type Profile struct {
	// Version is FormatVersion for profiles this package writes.
	Version int `json:"version"`
	// CPU is the CPU model name, Cores the number of logical CPUs usable.
	CPU   string `json:"cpu"`
	Cores int    `json:"cores"`
	// LineSize is the last-level cache line size in bytes.
	LineSize int `json:"line_size"`
	// Date is when the profile was measured (RFC 3339), Tool the prophet
	// version that measured it.
	Date string `json:"date,omitempty"`
	Tool string `json:"tool,omitempty"`

	Overheads Overheads `json:"overheads"`
	// Defaulted names, by their JSON keys, the overheads that
	// calibrate could not measure and took from Default instead:
	// measured on one core (GOMAXPROCS 1), the costs that involve a
	// second core (a cache line, a goroutine or a wake-up moving
	// between cores, a waiter spinning beside the holder) read as
	// zeros or as what one core does instead (a lock hand-off that
	// waits for the holder's preemption). Empty where every overhead
	// was measured.
	Defaulted []string `json:"defaulted_overheads,omitempty"`
	Walk      Walk     `json:"walk"`
	// ComputeInflation maps a thread count t to κ_t ≥ 1: how much longer
	// a compute-bound loop takes on each of t threads running at once
	// than on one thread alone. It is 1 on a machine whose cores are its
	// own; virtual CPUs that share physical cores (SMT siblings, a busy
	// host) make it larger, and every computation of a parallel section
	// then stretches by it. Nil when not measured.
	ComputeInflation map[int]float64 `json:"compute_inflation,omitempty"`
	// Memory is nil when memory calibration was not run.
	Memory *Memory `json:"memory,omitempty"`
}

// Overheads are the costs, in nanoseconds, of the parallel constructs the
// fast-forward emulator charges. Measured by `prophet calibrate` (or
// `prophet calibrate --overheads`) with the real goroutine constructs of
// package par on the machine at hand.
type Overheads struct {
	// ForkNs is the cost of starting a team of goroutines for a section
	// (charged once per section, on the thread that enters it).
	ForkNs float64 `json:"fork_ns"`
	// JoinNs is the cost of the barrier at a section's end.
	JoinNs float64 `json:"join_ns"`
	// ChunkNs is the cost of fetching one chunk in dynamic and guided
	// schedules.
	ChunkNs float64 `json:"chunk_ns"`
	// ChunkMigrateNs is what a chunk fetch costs beyond ChunkNs when
	// the team's counter was last fetched from on another core: its
	// cache line moves over. Workers of tasks longer than a few tens of
	// nanoseconds alternate at the counter, and nearly every fetch pays
	// it. Calibrate measures it beside tasks that compute on their
	// index from their start to their end, as a loop body does: what a
	// fetch costs depends on the work around it. Load gives a profile
	// without it Default's; zero charges nothing.
	ChunkMigrateNs float64 `json:"chunk_migrate_ns"`
	// ChunkServeNs is how long the team's counter takes per fetch when
	// its workers queue for it: while its line moves to one worker, the
	// others' fetches wait (see ChunkServe). Calibrate measures it as
	// the wall time per task of GOMAXPROCS workers taking short
	// computing tasks one at a time. It can be shorter than
	// ChunkMigrateNs, what one fetch waits for the line: a core that
	// still holds the line can fetch again before another core's
	// request takes it. Zero means not measured: ChunkMigrateNs stands
	// for it.
	ChunkServeNs float64 `json:"chunk_serve_ns,omitempty"`
	// ChunkMigrateShortNs is what a chunk fetch that moves the
	// counter's line costs beyond ChunkNs when the worker asks again
	// ChunkShortTaskNs after its last fetch: on some machines (cloud VMs
	// whose cores move lines slowly) a worker of short tasks fetches
	// several times while another core's request for the line is on its
	// way, and the fetch costs less the more often the workers ask (see
	// ChunkMigrateFor). Calibrate measures it as ChunkMigrateNs, beside
	// tasks of ChunkShortTaskNs, and leaves both zero where the fetch
	// there is not clearly cheaper than beside long tasks (on machines
	// whose cores move lines fast it can cost more: the counter's
	// serving time, measured beside short tasks, charges that). Zero
	// charges ChunkMigrateNs at every move.
	ChunkMigrateShortNs float64 `json:"chunk_migrate_short_ns,omitempty"`
	ChunkShortTaskNs    float64 `json:"chunk_short_task_ns,omitempty"`
	// TaskCallNs is what a worksharing loop adds to each of its tasks by
	// calling the loop body through a function value (package par's
	// workers do, as do a pool's), where the serial loop runs the body
	// inline: the call, and the loads of what the body captured.
	// Calibrate measures it beside tasks that compute on their index. It
	// is charged to every task of a static, dynamic, guided and pool
	// schedule; a spawned goroutine's start (SpawnRunNs) already holds
	// its call. Load gives a profile without it Default's; zero charges
	// nothing.
	TaskCallNs float64 `json:"task_call_ns"`
	// SpawnNs is the cost of starting one goroutine for a task (spawn).
	SpawnNs float64 `json:"spawn_ns"`
	// SpawnRunNs is what running a spawned goroutine costs the core that
	// runs it beyond its task: taking it from the spawner's run queue
	// (its descriptor and stack were made on another core), switching to
	// it, what package par's goroutine does around its task (deferring
	// the WaitGroup's Done and a recover), and its exit with the Done.
	// Where the cores, not the spawner, limit a spawn, each goroutine
	// costs SpawnNs plus this.
	// Load gives a profile without it Default's; zero charges nothing.
	SpawnRunNs float64 `json:"spawn_run_ns"`
	// SpawnRunSlope is how much SpawnRunNs shrinks per nanosecond that a
	// spawned goroutine's task is shorter than SpawnRunTaskNs, the task
	// length SpawnRunNs was measured with: a spawn loop of short tasks
	// costs each goroutine less beyond its task than one of long tasks
	// (SpawnRunFor). Zero (a profile saved before it was measured)
	// charges SpawnRunNs whatever the task.
	SpawnRunSlope float64 `json:"spawn_run_slope,omitempty"`
	// SpawnRunTaskNs is the task length, in nanoseconds, at which
	// SpawnRunNs was measured; tasks at least this long are charged
	// SpawnRunNs.
	SpawnRunTaskNs float64 `json:"spawn_run_task_ns,omitempty"`
	// SpawnRunHotNs is what running a spawned goroutine costs beyond its
	// task where the cores other than the spawner's keep up with it, so
	// that each goroutine runs soon after it is made instead of waiting
	// among thousands: far less than SpawnRunFor's line, measured where
	// the cores fall behind. SpawnRunHotTaskNs is the longest task with
	// which they kept up on the machine calibrated (its tasks and
	// shorter ones are charged SpawnRunHotNs), and SpawnRunShortTaskNs
	// the task length of the line's short end: from SpawnRunHotTaskNs
	// to it the charge rises linearly to the line's, and from it to
	// SpawnRunTaskNs it follows a curve in the task's logarithm
	// (SpawnRunFor).
	// Calibrate sets SpawnRunHotNs so that at SpawnRunHotTaskNs a
	// goroutine's task and start on one of the other cores take as long
	// as the spawner takes for that many spawns, which is where ff's
	// spawn loop turns from the spawner's pace to the cores'. Zero
	// SpawnRunHotTaskNs (a profile saved before they were measured)
	// leaves the line alone.
	SpawnRunHotNs       float64 `json:"spawn_run_hot_ns,omitempty"`
	SpawnRunHotTaskNs   float64 `json:"spawn_run_hot_task_ns,omitempty"`
	SpawnRunShortTaskNs float64 `json:"spawn_run_short_task_ns,omitempty"`
	// ChanSendNs is the cost of one send into a buffered channel with
	// room, by one goroutine (a worker pool's caller filling the
	// channel; errgroup's semaphore taken in Go). ChanRecvNs is what a
	// worker of a pool pays per task received when all of the team's
	// workers receive from the one channel at once: the channel's lock
	// and cache line contended. Load gives a profile without them
	// Default's; zero charges nothing.
	ChanSendNs float64 `json:"chan_send_ns"`
	ChanRecvNs float64 `json:"chan_recv_ns"`
	// LockNs is the cost of acquiring and releasing an uncontended
	// mutex; LockHandoffNs the typical delay before a goroutine that
	// parked waiting for a contended lock, its thread long asleep, runs
	// again after the Unlock that wakes it (calibrate takes the median of
	// its trials whose waiters waited a millisecond or more). The
	// fast-forward emulator takes it as the median of a
	// log-normal with LockHandoffP90Ns's spread (see package emulate/ff);
	// a waiter that parked only recently pays less (LockDozeHandoffNs).
	LockNs        float64 `json:"lock_ns"`
	LockHandoffNs float64 `json:"lock_handoff_ns"`
	// LockLocalNs is what an uncontended Lock and Unlock add to a task
	// beside its own work, where no other core touches the lock: the two
	// atomic instructions' latency overlaps the work around them, where
	// LockNs times pairs back to back with nothing to overlap. The
	// fast-forward emulator charges it for every Lock on one thread, and
	// LockNs on more (see package emulate/ff). Zero means not measured (a
	// profile from before prophet measured it): LockNs is charged on one
	// thread too (see LockLocal).
	LockLocalNs float64 `json:"lock_local_ns,omitempty"`
	// LockHandoffP90Ns is the 90th percentile of the hand-offs whose
	// median is LockHandoffNs: the spread of one hand-off's latency,
	// which is narrower than an idle core's wake-up latency's. Zero means
	// not measured (a profile written by hand): the emulator takes the
	// wake-up latency's spread (WakeP50Ns, WakeP90Ns).
	LockHandoffP90Ns float64 `json:"lock_handoff_p90_ns,omitempty"`
	// LockDozeNs, LockDozeRampNs, LockDozeHandoffNs and LockDozeWakeNs
	// describe a parked waiter that is woken soon after it parked: its
	// idle core has not gone to a deep sleep yet (a virtual CPU's guest
	// polls a while before it halts; a physical core enters deeper sleep
	// states as it stays idle), so that its hand-off takes
	// LockDozeHandoffNs and the Unlock that wakes it LockDozeWakeNs,
	// where one that waited longer pays LockHandoffNs and LockWakeNs. A
	// waiter that had waited up to LockDozeNs when the Unlock came dozed;
	// one that waited LockDozeNs+LockDozeRampNs or longer slept; in
	// between the costs go linearly from the one to the other (see
	// HandoffFor). A lock loop whose waiters park for a holder's
	// preemption (tens of microseconds) pays the doze costs. Zero
	// LockDozeHandoffNs means not measured (a profile written by hand, or
	// measured on one core) or no difference found: every hand-off pays
	// LockHandoffNs and LockWakeNs.
	LockDozeNs        float64 `json:"lock_doze_ns,omitempty"`
	LockDozeRampNs    float64 `json:"lock_doze_ramp_ns,omitempty"`
	LockDozeHandoffNs float64 `json:"lock_doze_handoff_ns,omitempty"`
	LockDozeWakeNs    float64 `json:"lock_doze_wake_ns,omitempty"`
	// LockMigrateNs is what taking a mutex costs beyond LockNs when it
	// was last held on another core: its cache line moves over (tens of
	// nanoseconds, which a loop of short critical sections on several
	// cores pays at nearly every Lock). Load gives a profile without
	// it Default's; zero charges nothing.
	LockMigrateNs float64 `json:"lock_migrate_ns"`
	// LockWakeNs is the unlocker's own cost when its Unlock wakes a
	// waiter that parked: Go readies the waiter and wakes an idle core's
	// thread for it (a futex wake) before Unlock returns, while the lock
	// is already free: microseconds, where an uncontended Lock and
	// Unlock takes nanoseconds. Zero means not measured (a
	// profile from before prophet measured it): nothing is charged.
	LockWakeNs float64 `json:"lock_wake_ns,omitempty"`
	// LockSwitchNs is what it takes to switch in a goroutine that
	// parked for a lock while its core ran other goroutines (gopark,
	// goready, the scheduler): measured as the time a lock-bound spawn
	// of thousands of goroutines takes beyond its critical sections, per
	// section (about a microsecond), where the mutex soon starves (its
	// waiters wait longer than a millisecond) and hands the lock over
	// directly, so that the lock stays unused while its new holder is
	// switched in. In normal mode an Unlock only readies such a waiter
	// and the lock stays free while it is switched in, for it to try
	// again then. With it, a lock waiter whose core has other goroutines
	// waiting parks at once instead of spinning, as sync.Mutex does
	// (runtime_canSpin); a waiter that parked after spinning, its
	// thread asleep, pays LockHandoffNs instead. Zero means not measured
	// (a profile from before prophet measured it): neither is emulated.
	LockSwitchNs float64 `json:"lock_switch_ns,omitempty"`
	// LockSpinNs and LockSpinRampNs are the spin window of a contended
	// mutex: a waiter whose lock comes free within LockSpinNs of asking
	// is still awake (sync.Mutex spins before it parks) and takes it at
	// once; one that waited LockSpinNs+LockSpinRampNs or longer has
	// parked and pays a hand-off (LockHandoffNs); in between, the share
	// of parked waiters grows from none to all. Zero LockSpinNs means not
	// measured (a profile from before prophet measured it): emulators
	// then take Default's window (see LockSpin).
	LockSpinNs     float64 `json:"lock_spin_ns,omitempty"`
	LockSpinRampNs float64 `json:"lock_spin_ramp_ns,omitempty"`
	// LockCheckNs is the time between two checks of the lock by a
	// goroutine spinning for it, counted from its request: it sees an
	// Unlock only at its next check (see SpinCheckNs). Zero means not
	// measured (a profile from before prophet measured it): SpinCheckNs
	// then takes the spin window over SpinChecks.
	LockCheckNs float64 `json:"lock_check_ns,omitempty"`
	// WakeNs is the latency before a worker that was idle starts a task
	// handed to it: WakeP50Ns and WakeP90Ns are the median and 90th
	// percentile measured; emulators use them to model late starts.
	WakeP50Ns float64 `json:"wake_p50_ns"`
	WakeP90Ns float64 `json:"wake_p90_ns"`
	// RunnextNs is how much later than the wake-up latency an idle core
	// starts a goroutine that waits in a busy core's runnext slot (the
	// last goroutine a running goroutine started, as the one worker of a
	// two-thread team is): Go's work stealing backs off before taking
	// it (runqgrab's usleep(3), which a VM's timer slack can stretch to
	// tens of microseconds), while goroutines queued behind it are taken at
	// once. Zero means not measured (a profile from before prophet
	// measured it, whose wake-up latency was fitted to two-thread teams
	// and so includes it): no back-off is emulated.
	RunnextNs float64 `json:"runnext_ns,omitempty"`
	// WakeStepNs is the time between the starts of a team's workers
	// after the first woken one: Go wakes one idle core's thread at a
	// time for new goroutines (a spinning M, started only where none
	// spins), and that thread, once it has taken a goroutine, wakes the
	// next. Calibrate measures it on machines of four cores or more.
	// Zero means not measured (two cores have one to wake; a profile
	// from before prophet measured it): every idle core is woken at
	// once.
	WakeStepNs float64 `json:"wake_step_ns,omitempty"`
	// NoiseHz is how often, per second, a core running a goroutine loses
	// it for a moment to something else (a timer interrupt, the
	// hypervisor, the kernel: hundreds of times a second on a cloud VM)
	// while another core runs on, and NoiseP50Ns and NoiseP90Ns the
	// median and 90th percentile of how long (microseconds to tens of
	// microseconds there). A moment in which every core stops at once (a
	// virtual machine's host stopping all its CPUs) is left out: it
	// delays no goroutine against another. A serial run's
	// recorded lengths carry such hiccups on average; what they cannot
	// carry is that a hiccup while a lock is held holds up every waiter
	// and can turn a contended loop's collision-free rhythm into a convoy
	// of hand-offs, which is what the fast-forward emulator uses them
	// for (see package emulate/ff). Zero NoiseHz means not measured: no
	// noise is emulated.
	NoiseHz    float64 `json:"noise_hz,omitempty"`
	NoiseP50Ns float64 `json:"noise_p50_ns,omitempty"`
	NoiseP90Ns float64 `json:"noise_p90_ns,omitempty"`
}

// ChunkMigrateFor returns what a chunk fetch that moves the counter's
// cache line costs beyond ChunkNs, and the counter's serving time
// (ChunkServe), for a worker whose last fetch ended intervalNs before it
// asks: ChunkMigrateNs and ChunkServe, but where the short end is
// measured (ChunkMigrateShortNs at ChunkShortTaskNs, under
// ChunkMigrateNs), a worker that asks sooner than the line through the
// origin and that point reaches ChunkMigrateNs pays the line's value,
// and the counter serves it in ChunkServe shortened in the same
// proportion: workers of short tasks take several fetches per move of
// the line, and hold it for less at each. Negative costs count as 0.
func (o Overheads) ChunkMigrateFor(intervalNs float64) (migNs, serveNs float64) {
	return o.ChunkCurve().For(intervalNs)
}

// ChunkCurve is what a chunk fetch that moves the counter's cache line
// costs as a function of how soon its worker asks again
// (Overheads.ChunkMigrateFor), held as the few numbers behind it: an
// emulator that charges a fetch at every step takes it out of the
// profile once rather than going through the whole Overheads each time.
type ChunkCurve struct {
	migNs, serveNs, shortNs, taskNs, endNs float64
}

// ChunkCurve returns o's chunk fetch curve.
func (o Overheads) ChunkCurve() ChunkCurve {
	return ChunkCurve{
		migNs: max(o.ChunkMigrateNs, 0), serveNs: o.ChunkServe(),
		shortNs: o.ChunkMigrateShortNs, taskNs: o.ChunkShortTaskNs, endNs: o.ChunkShortEndNs(),
	}
}

// For returns the move's cost and the counter's serving time for a
// worker whose last fetch ended intervalNs before it asks (see
// Overheads.ChunkMigrateFor).
func (c ChunkCurve) For(intervalNs float64) (migNs, serveNs float64) {
	if !(intervalNs < c.endNs) {
		return c.migNs, c.serveNs
	}
	at := c.shortNs * max(intervalNs, 0) / c.taskNs
	return at, c.serveNs * at / c.migNs
}

// EndNs returns the interval from which a fetch costs the whole move
// (Overheads.ChunkShortEndNs; 0: no short end).
func (c ChunkCurve) EndNs() float64 { return c.endNs }

// ChunkShortEndNs returns the interval between a worker's fetches from
// which a fetch that moves the counter's line costs the whole
// ChunkMigrateNs (ChunkMigrateFor): where the line through the origin
// and the short end (ChunkMigrateShortNs at ChunkShortTaskNs) reaches
// it, or 0 where the short end is not measured or not under
// ChunkMigrateNs.
func (o Overheads) ChunkShortEndNs() float64 {
	short, task, mig := o.ChunkMigrateShortNs, o.ChunkShortTaskNs, o.ChunkMigrateNs
	if !(short > 0) || !(task > 0) || !(short < mig) || math.IsInf(task, 0) || math.IsInf(mig, 0) {
		return 0
	}
	return task * mig / short
}

// ChunkServe is how long the counter takes per fetch when workers queue
// for it: ChunkServeNs, or ChunkMigrateNs where that is not measured
// (negative values count as 0).
func (o Overheads) ChunkServe() float64 {
	if o.ChunkServeNs > 0 {
		return o.ChunkServeNs
	}
	return max(o.ChunkMigrateNs, 0)
}

// LockLocal is what an uncontended Lock costs beside a task's work where
// no other core touches the lock: LockLocalNs, or LockNs where that is
// not measured (negative values count as 0).
func (o Overheads) LockLocal() float64 {
	if o.LockLocalNs > 0 {
		return o.LockLocalNs
	}
	return max(o.LockNs, 0)
}

// LateStartNs is how late a forked team's last worker typically starts:
// the median wake-up latency plus the runnext back-off (negative values
// count as 0).
func (o Overheads) LateStartNs() float64 {
	return max(o.WakeP50Ns, 0) + max(o.RunnextNs, 0)
}

// SpawnRunFor returns SpawnRunNs for a spawned goroutine whose task
// takes taskNs: SpawnRunNs less SpawnRunSlope for every nanosecond the
// task is shorter than SpawnRunTaskNs, and at least 0 (the line); with
// no slope or task length, SpawnRunNs for every task. Where the short
// end's task is known (SpawnRunShortTaskNs, under SpawnRunTaskNs), a
// task between the two gets the line's two ends joined linearly in the
// logarithm of the task instead, a curve that rises fast over short
// tasks and flattens towards long ones, as spawn loops' costs do. Where
// the hot start is known (SpawnRunHotTaskNs > 0), a task no longer than
// SpawnRunHotTaskNs gets SpawnRunHotNs, and one between it and
// SpawnRunShortTaskNs the straight line from there to the short end's
// value, but never more than the line.
func (o Overheads) SpawnRunFor(taskNs float64) float64 {
	curve := o.spawnRunCurve(taskNs)
	hotT, shortT, hot := o.SpawnRunHotTaskNs, o.SpawnRunShortTaskNs, max(o.SpawnRunHotNs, 0)
	if !(hotT > 0) || math.IsInf(hotT, 0) || math.IsNaN(hot) || math.IsInf(hot, 0) || !(taskNs < max(shortT, hotT)) {
		return curve
	}
	if taskNs <= hotT || !(shortT > hotT) || math.IsInf(shortT, 0) {
		return min(hot, curve)
	}
	at := o.spawnRunLine(shortT)
	return min(hot+(at-hot)*(taskNs-hotT)/(shortT-hotT), curve)
}

// spawnRunCurve is SpawnRunFor without the hot start: the line, with
// its ends joined in the logarithm of the task between
// SpawnRunShortTaskNs and SpawnRunTaskNs where both are known.
func (o Overheads) spawnRunCurve(taskNs float64) float64 {
	shortT, longT := o.SpawnRunShortTaskNs, o.SpawnRunTaskNs
	if !(shortT > 0) || !(longT > shortT) || math.IsInf(longT, 0) || !(taskNs > shortT) || !(taskNs < longT) {
		return o.spawnRunLine(taskNs)
	}
	lo, hi := o.spawnRunLine(shortT), o.spawnRunLine(longT)
	return lo + (hi-lo)*math.Log(taskNs/shortT)/math.Log(longT/shortT)
}

// spawnRunLine is SpawnRunFor's line: SpawnRunNs less SpawnRunSlope for
// every nanosecond taskNs is short of SpawnRunTaskNs, at least 0.
func (o Overheads) spawnRunLine(taskNs float64) float64 {
	if !(o.SpawnRunSlope > 0) || !(o.SpawnRunTaskNs > 0) || math.IsInf(o.SpawnRunSlope, 0) || math.IsInf(o.SpawnRunTaskNs, 0) || !(taskNs < o.SpawnRunTaskNs) {
		return o.SpawnRunNs
	}
	return max(o.SpawnRunNs-o.SpawnRunSlope*(o.SpawnRunTaskNs-max(taskNs, 0)), 0)
}

// HandoffFor returns the hand-off latency and the waking Unlock's own
// cost of a parked lock waiter that had waited waitedNs when the Unlock
// came: LockDozeHandoffNs and LockDozeWakeNs up to LockDozeNs,
// LockHandoffNs and LockWakeNs from LockDozeNs+LockDozeRampNs on, and
// the straight line between the two over the ramp. A profile without
// doze costs (LockDozeHandoffNs ≤ 0) gets LockHandoffNs and LockWakeNs
// at every wait.
func (o Overheads) HandoffFor(waitedNs float64) (handoffNs, wakeNs float64) {
	handoffNs, wakeNs = o.LockHandoffNs, o.LockWakeNs
	doze, ramp := o.LockDozeNs, max(o.LockDozeRampNs, 0)
	if !(o.LockDozeHandoffNs > 0) || math.IsInf(o.LockDozeHandoffNs, 0) || !(doze >= 0) || math.IsInf(doze+ramp, 0) || !(waitedNs <= doze+ramp) {
		return handoffNs, wakeNs
	}
	dozeWake := max(o.LockDozeWakeNs, 0)
	if waitedNs <= doze || ramp == 0 {
		return o.LockDozeHandoffNs, dozeWake
	}
	f := (waitedNs - doze) / ramp
	return o.LockDozeHandoffNs + (handoffNs-o.LockDozeHandoffNs)*f, dozeWake + (wakeNs-dozeWake)*f
}

// SpinChecks is how many times a goroutine waiting for a sync.Mutex
// checks it while it spins, before it parks (the runtime's
// active_spin): the spin window (LockSpinNs) is that many checks.
const SpinChecks = 4

// SpinCheckNs returns the time between two checks of a goroutine
// spinning for a sync.Mutex (LockCheckNs), or for a profile that has
// none the spin window (LockSpin) over SpinChecks. A goroutine that
// finds the lock taken waits at least that long unless the lock comes
// free before its first check.
func (o Overheads) SpinCheckNs() float64 {
	if o.LockCheckNs > 0 {
		return o.LockCheckNs
	}
	if o.LockSpinNs > 0 {
		return o.LockSpinNs / SpinChecks
	}
	return Default().Overheads.LockCheckNs
}

// LockSpin returns the spin window (see LockSpinNs): o's, or Default's
// when o has none, reaching at least o's last spin check (SpinChecks ×
// LockCheckNs) where o has LockCheckNs: a waiter parks only after its
// last check, and the window measured (the last hold time a waiter met
// awake) can fall short of it by up to the measurement's step.
func (o Overheads) LockSpin() (spinNs, rampNs float64) {
	spinNs, rampNs = o.LockSpinNs, max(o.LockSpinRampNs, 0)
	if !(spinNs > 0) {
		d := Default().Overheads
		spinNs, rampNs = d.LockSpinNs, d.LockSpinRampNs
	}
	if o.LockCheckNs > 0 {
		spinNs = max(spinNs, SpinChecks*o.LockCheckNs)
	}
	return spinNs, rampNs
}

// Walk holds the synthesizer's tree-walking costs (the paper's
// OVERHEAD_ACCESS_NODE and OVERHEAD_RECURSIVE_CALL), in nanoseconds, as
// measured on a tree of one shape (syn.MeasureWalk), and a spin delay's
// own cost. The synthesizer measures each section's per-node cost on the
// section itself unless told to use these (syn.Options.FixedWalk); it
// always uses SpinNs. The zero Walk means "not calibrated": the
// synthesizer then measures them itself, on the machine that replays,
// which is the only one they are true of.
type Walk struct {
	NodeNs float64 `json:"node_ns"`
	CallNs float64 `json:"call_ns"`
	// SpinNs is what a spin delay takes beyond its request (the clock
	// reads that start and end it). The synthesizer spins that much
	// less inside a replayed critical section, so that the lock is held
	// as long as recorded: holds of tens of nanoseconds would otherwise
	// come out twice as long. Zero in a profile saved before it was
	// measured: the synthesizer then measures it.
	SpinNs float64 `json:"spin_ns,omitempty"`
	// Clock names the clock the spin delays read when these were
	// measured (spin.Clock): what a delay costs beyond its request
	// depends on it, so the synthesizer measures its own walking costs
	// where a profile's name another (a profile measured on another
	// machine). Empty: not named, used as given.
	Clock string `json:"clock,omitempty"`
}

// Fit is a fitted curve y = A·f(x) + B where f is the identity ("linear"),
// the natural logarithm ("log"), or, for "power", y = A·x^B.
type Fit struct {
	Form string  `json:"form"`
	A    float64 `json:"a"`
	B    float64 `json:"b"`
	R2   float64 `json:"r2"`
	// MinX is the smallest x the fit was made over; below it the fit is
	// not trusted.
	MinX float64 `json:"min_x"`
	MaxX float64 `json:"max_x,omitempty"`
}

// Memory holds the memory-traffic fits of the paper's section V-D.
type Memory struct {
	// Psi maps a thread count t (as a decimal string key in JSON) to the
	// fit of total traffic of t threads (MB/s) against single-thread
	// traffic δ (MB/s); δ^t = Psi[t](δ)/t.
	Psi map[int]Fit `json:"psi"`
	// Phi is the fit of stall cycles per DRAM access ω against per-thread
	// traffic δ^t (MB/s), a power law ω = A·δ^B.
	Phi Fit `json:"phi"`
	// FreqGHz converts cycles to time where needed.
	FreqGHz float64 `json:"freq_ghz,omitempty"`
	// MinTrafficMBs is the smallest traffic for which the fits hold.
	MinTrafficMBs float64 `json:"min_traffic_mbs"`
}

// Default returns a profile with prophet's built-in overhead defaults:
// the medians of several calibrate.MeasureOverheads runs on a 2-core
// cloud VM, a stand-in until the machine at hand is measured (the
// commands measure it on first use). Its Walk is zero: the synthesizer's
// walking costs depend on the machine replaying as much as the overheads
// do, and it measures them there itself. docs/measurements.md records
// the runs behind each value. Calibrate on your own machine for better
// predictions.
func Default() Profile {
	return Profile{
		Version:  FormatVersion,
		Cores:    0,
		LineSize: 64,
		Overheads: Overheads{
			ForkNs:            250,
			JoinNs:            8000,
			ChunkNs:           1,
			ChunkMigrateNs:    21,
			TaskCallNs:        4,
			SpawnNs:           260,
			SpawnRunNs:        640,
			SpawnRunSlope:     0.15,
			SpawnRunTaskNs:    2000,
			ChanSendNs:        12,
			ChanRecvNs:        40,
			LockNs:            12,
			LockLocalNs:       2,
			LockHandoffNs:     200000,
			LockHandoffP90Ns:  222000,
			LockDozeNs:        50000,
			LockDozeRampNs:    50000,
			LockDozeHandoffNs: 112000,
			LockDozeWakeNs:    7200,
			LockMigrateNs:     40,
			LockWakeNs:        34000,
			LockSwitchNs:      1000,
			LockSpinNs:        2900,
			LockSpinRampNs:    500,
			LockCheckNs:       760,
			WakeP50Ns:         16000,
			WakeP90Ns:         23000,
			RunnextNs:         74000,
			NoiseHz:           600,
			NoiseP50Ns:        9500,
			NoiseP90Ns:        51000,
		},
	}
}

// Inflation returns κ_t for threads threads: the value measured at the
// largest calibrated thread count not above threads, or 1 when none is
// (never below 1).
func (p Profile) Inflation(threads int) float64 {
	best, k := 0, 1.0
	for t, v := range p.ComputeInflation {
		if t <= threads && t > best {
			best, k = t, v
		}
	}
	return max(k, 1)
}

// Load reads a machine profile from path.
func Load(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("reading machine profile: %w", err)
	}
	var p Profile
	if err := json.Unmarshal(data, &p); err != nil {
		return Profile{}, fmt.Errorf("reading machine profile %s: not a prophet machine profile: %w", path, err)
	}
	if p.Version != FormatVersion {
		return Profile{}, fmt.Errorf("reading machine profile %s: version %d, this prophet reads version %d: measure this machine again with prophet calibrate", path, p.Version, FormatVersion)
	}
	if err := p.Validate(); err != nil {
		return Profile{}, fmt.Errorf("reading machine profile %s: out of range: %w", path, err)
	}
	// Where a profile has no key for a cost (one written by hand; every
	// profile calibrate writes has them all, a cost measured as 0
	// included), Default's stands in.
	var keys struct {
		Overheads map[string]json.RawMessage `json:"overheads"`
	}
	if err := json.Unmarshal(data, &keys); err != nil {
		return Profile{}, fmt.Errorf("reading machine profile %s: not a prophet machine profile: %w", path, err)
	}
	saved := func(key string) bool { _, ok := keys.Overheads[key]; return ok }
	d := Default().Overheads
	if o := &p.Overheads; !saved("chan_send_ns") && !saved("chan_recv_ns") {
		o.ChanSendNs, o.ChanRecvNs = d.ChanSendNs, d.ChanRecvNs
	}
	if o := &p.Overheads; !saved("lock_migrate_ns") && o.LockNs > 0 {
		o.LockMigrateNs = d.LockMigrateNs
	}
	if o := &p.Overheads; !saved("chunk_migrate_ns") && o.ChunkNs > 0 {
		o.ChunkMigrateNs = d.ChunkMigrateNs
	}
	if o := &p.Overheads; !saved("task_call_ns") {
		o.TaskCallNs = d.TaskCallNs
	}
	if o := &p.Overheads; !saved("spawn_run_ns") && o.SpawnNs > 0 {
		o.SpawnRunNs = d.SpawnRunNs
	}
	return p, nil
}

// Save writes p to path as indented JSON, atomically (a temporary file
// renamed into place), so a failed write never leaves a half-written
// profile. A profile out of range (Validate) is not written.
func (p Profile) Save(path string) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("saving machine profile %s: out of range: %w", path, err)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding machine profile: %w", err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// DefaultPath is where prophet looks for a machine profile when none is
// named: prophet/machine.json under the user's configuration directory.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the default machine profile: %w", err)
	}
	return filepath.Join(dir, "prophet", "machine.json"), nil
}
