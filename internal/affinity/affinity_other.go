//go:build !linux

package affinity

import "runtime"

// Pin locks the calling goroutine to its thread; binding a thread to a
// CPU is only done on Linux.
func Pin() (cpu int, unpin func(), note string) {
	runtime.LockOSThread()
	return -1, runtime.UnlockOSThread, "thread locked but not bound to a CPU (Linux only)"
}

// PinThread cannot bind threads on this system.
func PinThread(cpu int) string { return "threads are bound to CPUs on Linux only" }

// CPUs returns nil: this system does not say which CPUs the process may
// use, so every CPU counts.
func CPUs() []int { return nil }
