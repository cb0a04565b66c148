package cputime

import "golang.org/x/sys/unix"

// Thread returns the CPU time of the calling OS thread in nanoseconds;
// ok is false where there is no such clock.
func Thread() (ns int64, ok bool) { return read(unix.CLOCK_THREAD_CPUTIME_ID) }

// Process returns the CPU time of the whole process, every thread
// together (user and system), in nanoseconds; ok is false where there is
// no such clock.
func Process() (ns int64, ok bool) { return read(unix.CLOCK_PROCESS_CPUTIME_ID) }

func read(id int32) (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}

// Children returns the CPU time, user and system, of this process's
// children that have ended and been waited for, in nanoseconds; ok is
// false where the system does not say.
func Children() (ns int64, ok bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
