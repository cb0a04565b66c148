//go:build linux

package affinity

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Pin locks the calling goroutine to its thread and binds the thread to
// the CPU it runs on. The returned function undoes both. A failure to
// bind is returned as a note (the thread stays locked, not bound).
func Pin() (cpu int, unpin func(), note string) {
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

// PinThread binds the calling thread, which the caller has locked, to
// cpu, and returns why it could not, or "".
func PinThread(cpu int) string {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Sprintf("thread not pinned to CPU %d: sched_setaffinity: %v", cpu, err)
	}
	return ""
}

// CPUs returns the CPUs this process may run on, in order (nil where
// the system does not say: then every CPU counts).
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
