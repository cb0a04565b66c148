//go:build linux

package bandit

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// pinThread binds the calling (locked) thread to cpu and returns why it
// could not, or "".
func pinThread(cpu int) string {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Sprintf("bandit not pinned to CPU %d: sched_setaffinity: %v", cpu, err)
	}
	return ""
}

// CPUs returns the CPUs this process may run on, in order (nil where
// the system does not say).
func CPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}
