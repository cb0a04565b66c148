package hostload

import (
	"os"
	"strconv"
	"strings"
)

// cpuTicks is one CPU's accounting from /proc/stat, in clock ticks.
type cpuTicks struct {
	busy, total uint64
}

// parseStat returns the per-CPU lines of a /proc/stat text, indexed by
// CPU number. Steal time (the hypervisor ran someone else on this
// virtual CPU) counts as busy: the core was not ours.
func parseStat(text string) map[int]cpuTicks {
	out := map[int]cpuTicks{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		var v [8]uint64
		ok := true
		for i := range v {
			if v[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		// user nice system idle iowait irq softirq steal
		busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
		out[n] = cpuTicks{busy: busy, total: busy + v[3] + v[4]}
	}
	return out
}

// sample is the busy and total ticks of the CPUs this process may run
// on, summed, and how many such CPUs there are.
type sample struct {
	busy, total uint64
	cpus        int
}

// readSample reads /proc/stat; ok is false where it cannot.
func readSample(cpus []int) (sample, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return sample{}, false
	}
	per := parseStat(string(data))
	return sumCPUs(per, cpus)
}

// sumCPUs sums the CPUs listed (all of per when cpus is nil); ok is
// false when none is found.
func sumCPUs(per map[int]cpuTicks, cpus []int) (sample, bool) {
	var s sample
	add := func(c cpuTicks) {
		s.busy += c.busy
		s.total += c.total
		s.cpus++
	}
	if cpus == nil {
		for _, c := range per {
			add(c)
		}
	} else {
		for _, n := range cpus {
			if c, ok := per[n]; ok {
				add(c)
			}
		}
	}
	return s, s.cpus > 0
}

// Average returns the machine's 1-minute load average, or 0 where the
// system does not say.
func Average() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return v
}
