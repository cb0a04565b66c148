package calibrate

import "golang.org/x/sys/unix"

// threadCPUNs returns the CPU time of the calling OS thread in
// nanoseconds; ok is false where there is no such clock.
func threadCPUNs() (ns int64, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
