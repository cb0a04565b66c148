//go:build !linux

package bandit

// pinThread cannot pin threads on this system.
func pinThread(cpu int) string { return "bandits are not pinned on this system" }

// CPUs returns nil: this system does not say which CPUs the process may
// use.
func CPUs() []int { return nil }
