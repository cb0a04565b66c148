package memprobe

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/parallel-prophet/prophet/internal/affinity"
	"github.com/parallel-prophet/prophet/internal/sysinfo"
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
	limit, why = sysinfo.QuotaLimit(len(cpus))
	if mp := runtime.GOMAXPROCS(0); mp < limit {
		limit = mp
		why = "GOMAXPROCS " + strconv.Itoa(mp)
	}
	return cpus, limit, why
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
