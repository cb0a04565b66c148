package calibrate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/parallel-prophet/prophet/machine"
)

// otherCoreCosts are the overheads, by their JSON keys in the machine
// profile, that involve a core besides the one the goroutine runs on:
// starting and joining a team (idle cores woken), a counter's or a
// lock's cache line moving between cores, a goroutine that another core
// takes from the spawner's queue, a waiter spinning beside the holder, a
// wake-up from another core. Measured with GOMAXPROCS 1 they read 0
// (nothing moves) or what one core does instead (a lock hand-off waits
// for the holder's preemption, 10 ms). The rest (a chunk fetch, the task
// call, the go statement, a channel operation, an uncontended Lock, the
// switch to a parked waiter, the noise) cost the same on one core.
var otherCoreCosts = []string{
	"fork_ns", "join_ns", "chunk_migrate_ns", "chunk_serve_ns", "chunk_migrate_short_ns", "chunk_short_task_ns",
	"spawn_run_ns", "spawn_run_slope", "spawn_run_task_ns", "spawn_run_hot_ns", "spawn_run_hot_task_ns", "spawn_run_short_task_ns",
	"lock_handoff_ns", "lock_handoff_p90_ns", "lock_migrate_ns", "lock_wake_ns", "lock_spin_ns", "lock_spin_ramp_ns", "lock_check_ns",
	"lock_doze_ns", "lock_doze_ramp_ns", "lock_doze_handoff_ns", "lock_doze_wake_ns",
	"wake_p50_ns", "wake_p90_ns", "runnext_ns", "wake_step_ns",
}

// overheadByKey returns the field of o whose JSON key is key, or nil.
func overheadByKey(o *machine.Overheads, key string) *float64 {
	rv := reflect.ValueOf(o).Elem()
	rt := rv.Type()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == key && rt.Field(i).Type.Kind() == reflect.Float64 {
			return rv.Field(i).Addr().Interface().(*float64)
		}
	}
	return nil
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
	for _, key := range otherCoreCosts {
		*overheadByKey(ov, key) = *overheadByKey(&d, key)
	}
	return slices.Clone(otherCoreCosts)
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
