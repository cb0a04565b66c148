package calibrate

import (
	"fmt"
	"strings"

	"github.com/parallel-prophet/prophet/machine"
)

// otherCoreCost is an overhead that only a second core shows, by its
// JSON key in the machine profile.
type otherCoreCost struct {
	key   string
	field func(*machine.Overheads) *float64
}

// otherCoreCosts are the overheads that involve a core besides the one
// the goroutine runs on: starting and joining a team (idle cores
// woken), a counter's or a lock's cache line moving between cores, a
// goroutine that another core takes from the spawner's queue, a waiter
// spinning beside the holder, a wake-up from another core. Measured with
// GOMAXPROCS 1 they read 0 (nothing moves) or what one core does
// instead (a lock hand-off waits for the holder's preemption, 10 ms).
// The rest (a chunk fetch, the task call, the go statement, a channel
// operation, an uncontended Lock, the switch to a parked waiter, the
// noise) cost the same on one core.
var otherCoreCosts = []otherCoreCost{
	{"fork_ns", func(o *machine.Overheads) *float64 { return &o.ForkNs }},
	{"join_ns", func(o *machine.Overheads) *float64 { return &o.JoinNs }},
	{"chunk_migrate_ns", func(o *machine.Overheads) *float64 { return &o.ChunkMigrateNs }},
	{"chunk_serve_ns", func(o *machine.Overheads) *float64 { return &o.ChunkServeNs }},
	{"spawn_run_ns", func(o *machine.Overheads) *float64 { return &o.SpawnRunNs }},
	{"spawn_run_slope", func(o *machine.Overheads) *float64 { return &o.SpawnRunSlope }},
	{"spawn_run_task_ns", func(o *machine.Overheads) *float64 { return &o.SpawnRunTaskNs }},
	{"spawn_run_hot_ns", func(o *machine.Overheads) *float64 { return &o.SpawnRunHotNs }},
	{"spawn_run_hot_task_ns", func(o *machine.Overheads) *float64 { return &o.SpawnRunHotTaskNs }},
	{"spawn_run_short_task_ns", func(o *machine.Overheads) *float64 { return &o.SpawnRunShortTaskNs }},
	{"lock_handoff_ns", func(o *machine.Overheads) *float64 { return &o.LockHandoffNs }},
	{"lock_migrate_ns", func(o *machine.Overheads) *float64 { return &o.LockMigrateNs }},
	{"lock_wake_ns", func(o *machine.Overheads) *float64 { return &o.LockWakeNs }},
	{"lock_spin_ns", func(o *machine.Overheads) *float64 { return &o.LockSpinNs }},
	{"lock_spin_ramp_ns", func(o *machine.Overheads) *float64 { return &o.LockSpinRampNs }},
	{"lock_check_ns", func(o *machine.Overheads) *float64 { return &o.LockCheckNs }},
	{"wake_p50_ns", func(o *machine.Overheads) *float64 { return &o.WakeP50Ns }},
	{"wake_p90_ns", func(o *machine.Overheads) *float64 { return &o.WakeP90Ns }},
	{"runnext_ns", func(o *machine.Overheads) *float64 { return &o.RunnextNs }},
	{"wake_step_ns", func(o *machine.Overheads) *float64 { return &o.WakeStepNs }},
}

// defaultOtherCores replaces, in ov measured with GOMAXPROCS procs,
// the overheads that need a second core (otherCoreCosts) by d's when
// procs is 1, and returns their keys (nil for two cores or more, where
// all were measured). A profile measured in a one-CPU container would
// otherwise predict two threads and more with free cache-line moves,
// wake-ups and spinning, and a 10 ms lock hand-off.
func defaultOtherCores(ov *machine.Overheads, d machine.Overheads, procs int) []string {
	if procs >= 2 {
		return nil
	}
	keys := make([]string, 0, len(otherCoreCosts))
	for _, c := range otherCoreCosts {
		*c.field(ov) = *c.field(&d)
		keys = append(keys, c.key)
	}
	return keys
}

// DefaultedNote says which of p's overheads are prophet's built-in
// values because the machine was measured on one core (p.Defaulted), or
// returns "" where every overhead was measured.
func DefaultedNote(p machine.Profile) string {
	if len(p.Defaulted) == 0 {
		return ""
	}
	return fmt.Sprintf("the machine profile was measured on one core, where the %d overheads that involve a second core cannot be measured (%s): prophet's built-in values stand in for them; calibrate with two cores or more to measure them",
		len(p.Defaulted), strings.Join(p.Defaulted, ", "))
}
