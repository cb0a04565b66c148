// Package sysinfo reads what prophet needs to know of the machine from the
// operating system: the CPU model and clock, the cores, and the last-level
// cache. calibrate records it in machine profiles, and the memory probe
// sizes its bandwidth bandits' buffers by it.
package sysinfo

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// System is what prophet reads about the machine from the operating
// system.
type System struct {
	// CPU is the CPU model name ("unknown" when not found).
	CPU string
	// Cores is runtime.NumCPU().
	Cores int
	// LineSize is the last-level cache line size in bytes (64 when not
	// found); LLCBytes the last-level cache size (32 MiB when not found).
	LineSize int
	LLCBytes int64
	// FreqGHz is the clock the OS reports ("cpu MHz"; 2 GHz when not
	// found, see FreqNote).
	FreqGHz float64
	// FreqNote says where FreqGHz came from.
	FreqNote string
}

// Read reads the CPU model and frequency from /proc/cpuinfo and the
// last-level cache from /sys/devices/system/cpu/cpu0/cache, with the
// documented defaults where they are missing (other systems than Linux).
func Read() System {
	s := System{CPU: "unknown", Cores: runtime.NumCPU(), LineSize: 64, LLCBytes: 32 << 20,
		FreqGHz: 2, FreqNote: "assumed 2 GHz: no cpu MHz in /proc/cpuinfo"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		gotModel, gotFreq := false, false
		for sc.Scan() && !(gotModel && gotFreq) {
			key, val, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			switch {
			case key == "model name" && !gotModel:
				s.CPU, gotModel = val, true
			case key == "cpu MHz" && !gotFreq:
				if mhz, err := strconv.ParseFloat(val, 64); err == nil && mhz > 0 {
					s.FreqGHz, s.FreqNote, gotFreq = mhz/1000, "cpu MHz of /proc/cpuinfo", true
				}
			}
		}
		f.Close()
	}
	// The highest cache index is the last level.
	const dir = "/sys/devices/system/cpu/cpu0/cache/"
	for i := 9; i >= 0; i-- {
		idx := dir + "index" + strconv.Itoa(i) + "/"
		size, err := os.ReadFile(idx + "size")
		if err != nil {
			continue
		}
		if n := parseSize(strings.TrimSpace(string(size))); n > 0 {
			s.LLCBytes = n
		}
		if ls, err := os.ReadFile(idx + "coherency_line_size"); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(ls))); err == nil && n > 0 {
				s.LineSize = n
			}
		}
		break
	}
	return s
}

// parseSize parses sysfs cache sizes such as "32768K" or "1M".
func parseSize(v string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K"):
		mult, v = 1<<10, strings.TrimSuffix(v, "K")
	case strings.HasSuffix(v, "M"):
		mult, v = 1<<20, strings.TrimSuffix(v, "M")
	case strings.HasSuffix(v, "G"):
		mult, v = 1<<30, strings.TrimSuffix(v, "G")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n * mult
}
