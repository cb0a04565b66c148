//go:build !linux

package profiler

import "runtime"

// pin locks the calling goroutine to its thread; binding a thread to a
// CPU is only done on Linux.
func pin() (cpu int, unpin func(), note string) {
	runtime.LockOSThread()
	return -1, runtime.UnlockOSThread, "thread locked but not bound to a CPU (Linux only)"
}

// lockOnly locks the calling goroutine to its thread without pinning it.
func lockOnly() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
