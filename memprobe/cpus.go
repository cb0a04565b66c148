package memprobe

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/parallel-prophet/prophet/internal/affinity"
)

// Cores returns how many cores a probe in this process could use (the
// affinity mask, a CPU quota and GOMAXPROCS, the least of them) and,
// when fewer than two, why: a probe needs one core for the program and
// one for each bandit.
func Cores() (n int, why string) {
	_, n, why = usableCPUs()
	if n < 2 && why == "" {
		why = fmt.Sprintf("%d usable core", n)
	}
	return n, why
}

// usableCPUs returns the CPUs the probe may use (the process's affinity
// mask, at most GOMAXPROCS of them: every bandit needs a P) and, when a
// CPU quota or GOMAXPROCS allows fewer, the number it allows and why.
func usableCPUs() (cpus []int, limit int, why string) {
	cpus = affinity.CPUs()
	if len(cpus) == 0 {
		for i := range runtime.NumCPU() {
			cpus = append(cpus, i)
		}
	}
	limit = len(cpus)
	if q, ok := cpuQuota(); ok && q < float64(limit) {
		limit = int(q)
		why = "a CPU quota of " + strconv.FormatFloat(q, 'g', 3, 64) + " cores"
	}
	if mp := runtime.GOMAXPROCS(0); mp < limit {
		limit = mp
		why = "GOMAXPROCS " + strconv.Itoa(mp)
	}
	return cpus, limit, why
}

// cpuQuota reads the cgroup v2 CPU quota (cpu.max) of this process, in
// cores; ok is false where there is none.
func cpuQuota() (cores float64, ok bool) {
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

// NoCoresNote says why a probe measures nothing in this process, or ""
// when it has cores enough.
func NoCoresNote() string {
	n, why := Cores()
	if n >= 2 {
		return ""
	}
	return "no memory probe: " + why + " leaves no core for the bandits"
}
