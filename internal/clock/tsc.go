package clock

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// TicksStable reports whether Ticks counts at a constant rate that keeps
// running in idle states, so that tick differences convert to time with
// one rate. On amd64 that needs the constant_tsc and nonstop_tsc CPU flags
// of /proc/cpuinfo; elsewhere Ticks is Now and always stable. When it
// returns false, the string says why.
func TicksStable() (bool, string) {
	if !TicksAreTSC {
		return true, ""
	}
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false, fmt.Sprintf("cannot check the time-stamp counter: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(key) != "flags" {
			continue
		}
		flags := map[string]bool{}
		for _, f := range strings.Fields(val) {
			flags[f] = true
		}
		for _, need := range []string{"tsc", "constant_tsc", "nonstop_tsc"} {
			if !flags[need] {
				return false, fmt.Sprintf("the CPU lacks the %s flag", need)
			}
		}
		return true, ""
	}
	return false, "no CPU flags in /proc/cpuinfo"
}

// MeasureTickRate measures how many nanoseconds one tick of Ticks lasts,
// by reading Ticks and Now together at the start and end of a sleep of
// about d (each pair read where the two reads lie closest together, out
// of several tries). Its relative error is about 100 ns / d.
func MeasureTickRate(d time.Duration) float64 {
	if !TicksAreTSC {
		return 1
	}
	t0, n0 := pair()
	time.Sleep(d)
	t1, n1 := pair()
	if t1 <= t0 || n1 <= n0 {
		return 1
	}
	return float64(n1-n0) / float64(t1-t0)
}

// pair reads Now and Ticks close together: of several tries, the one
// whose bracketing Now reads lie closest together.
func pair() (ticks, ns int64) {
	type try struct{ width, ticks, ns int64 }
	tries := make([]try, 15)
	for i := range tries {
		a := Now()
		t := Ticks()
		b := Now()
		tries[i] = try{b - a, t, a + (b-a)/2}
	}
	sort.Slice(tries, func(i, j int) bool { return tries[i].width < tries[j].width })
	return tries[0].ticks, tries[0].ns
}
