//go:build linux

package profiler

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pin locks the calling goroutine to its thread and binds the thread to
// the CPU it runs on. The returned function undoes both. A failure to
// bind is returned as a note (the thread stays locked, not bound).
func pin() (cpu int, unpin func(), note string) {
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return -1, runtime.UnlockOSThread, fmt.Sprintf("thread not pinned: sched_getaffinity: %v", err)
	}
	var c uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&c)), 0, 0); errno != 0 {
		return -1, runtime.UnlockOSThread, fmt.Sprintf("thread not pinned: getcpu: %v", errno)
	}
	var set unix.CPUSet
	set.Set(int(c))
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return -1, runtime.UnlockOSThread, fmt.Sprintf("thread not pinned to CPU %d: sched_setaffinity: %v", c, err)
	}
	return int(c), func() {
		if err := unix.SchedSetaffinity(0, &old); err != nil {
			// Keep the goroutine on its thread rather than hand a
			// thread bound to one CPU back to the scheduler.
			return
		}
		runtime.UnlockOSThread()
	}, ""
}

// lockOnly locks the calling goroutine to its thread without pinning it.
func lockOnly() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
