//go:build !linux

package profiler

import "errors"

// HardwareCounters reports that this system has no perf_event support.
func HardwareCounters() (CounterSet, error) {
	return nil, errors.New("hardware counters unavailable: perf_event_open exists only on Linux")
}
