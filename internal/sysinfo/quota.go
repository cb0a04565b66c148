package sysinfo

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// CPUQuota reads this process's cgroup v2 CPU quota (cpu.max), in
// cores; ok is false where there is none (no cgroup v2, or "max").
func CPUQuota() (cores float64, ok bool) {
	data, err := os.ReadFile("/sys/fs/cgroup/cpu.max")
	if err != nil {
		return 0, false
	}
	return parseCPUMax(string(data))
}

// parseCPUMax parses cpu.max's "QUOTA PERIOD" ("max PERIOD": none).
func parseCPUMax(s string) (cores float64, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 || f[0] == "max" {
		return 0, false
	}
	q, err1 := strconv.ParseFloat(f[0], 64)
	p, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return q / p, true
}

// RunnableCores returns how many threads this process can run at once:
// runtime.NumCPU() (the CPUs its affinity mask allows), or fewer where
// a CPU quota allows fewer whole cores (at least 1), and then why. A
// real parallel run at more threads than that is throttled to the
// quota and measures the quota, not the machine being predicted.
func RunnableCores() (n int, why string) {
	return QuotaLimit(runtime.NumCPU())
}

// QuotaLimit returns how many of cpus CPUs this process can run at
// once: cpus, or the CPU quota's whole cores where that is fewer (at
// least 1), and then why.
func QuotaLimit(cpus int) (n int, why string) {
	return runnable(cpus, CPUQuota)
}

// runnable is QuotaLimit with the quota's reader given.
func runnable(cpus int, quota func() (float64, bool)) (n int, why string) {
	n = max(cpus, 1)
	if q, ok := quota(); ok && int(q) < n {
		n = max(int(q), 1)
		why = "a CPU quota of " + strconv.FormatFloat(q, 'g', 3, 64) + " cores"
	}
	return n, why
}
