//go:build linux

package profiler

import (
	"errors"
	"fmt"
	"os"
	"strings"

	perf "github.com/hodgesds/perf-utils"
	"golang.org/x/sys/unix"
)

// HardwareCounters opens a perf_event group (perf-utils' GroupProfiler)
// counting instructions, CPU cycles and cache misses (the generic
// PERF_COUNT_HW_CACHE_MISSES event, last-level cache misses on most CPUs)
// of the calling thread on any CPU. It first opens the instructions event
// alone to learn why hardware counting fails, if it does, and says so in
// the error: no PMU (ENOENT, typical of virtual machines), or not allowed
// (EACCES or EPERM, with the kernel.perf_event_paranoid setting).
func HardwareCounters() (CounterSet, error) {
	attr := perf.CPUInstructionsEventAttr()
	attr.Size = perf.EventAttrSize
	attr.Bits |= unix.PerfBitDisabled
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, counterError(err)
	}
	unix.Close(fd)
	g, err := perf.NewGroupProfiler(0, -1, unix.PERF_FLAG_FD_CLOEXEC,
		perf.CPUInstructionsEventAttr(), perf.CPUCyclesEventAttr(), perf.CacheMissEventAttr())
	if err != nil {
		return nil, fmt.Errorf("hardware counters unavailable: opening the perf_event group (instructions, cycles, cache misses)%s: %v",
			paranoidNote(), err)
	}
	return &perfCounters{g: g}, nil
}

// counterError turns perf_event_open's error into a sentence.
func counterError(err error) error {
	var hint string
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EOPNOTSUPP):
		hint = " (virtual machine without a PMU?)"
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		hint = paranoidNote()
	case errors.Is(err, unix.ENOSYS):
		hint = " (kernel without perf events)"
	}
	return fmt.Errorf("hardware counters unavailable: perf_event_open(instructions): %w%s", err, hint)
}

// paranoidNote names the kernel.perf_event_paranoid setting, if readable.
func paranoidNote() string {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (kernel.perf_event_paranoid = %s; counting this thread needs 2 or less, kernel events 1 or less, or CAP_PERFMON)",
		strings.TrimSpace(string(b)))
}

// perfCounters is a CounterSet over a perf-utils group.
type perfCounters struct {
	g perf.GroupProfiler
	v perf.GroupProfileValue
}

// Begin implements CounterSet.
func (c *perfCounters) Begin() error {
	if err := c.g.Reset(); err != nil {
		return fmt.Errorf("resetting counters: %w", err)
	}
	if err := c.g.Start(); err != nil {
		return fmt.Errorf("enabling counters: %w", err)
	}
	return nil
}

// Pause implements CounterSet.
func (c *perfCounters) Pause() error {
	if err := c.g.Stop(); err != nil {
		return fmt.Errorf("pausing counters: %w", err)
	}
	return nil
}

// Resume implements CounterSet.
func (c *perfCounters) Resume() error {
	if err := c.g.Start(); err != nil {
		return fmt.Errorf("resuming counters: %w", err)
	}
	return nil
}

// End implements CounterSet.
func (c *perfCounters) End() (Sample, error) {
	if err := c.g.Stop(); err != nil {
		return Sample{}, fmt.Errorf("disabling counters: %w", err)
	}
	if err := c.g.Profile(&c.v); err != nil {
		return Sample{}, fmt.Errorf("reading counters: %w", err)
	}
	if len(c.v.Values) < 3 {
		return Sample{}, fmt.Errorf("reading counters: %d values, want 3", len(c.v.Values))
	}
	// Scale for multiplexing: the group counted only TimeRunning of
	// TimeEnabled.
	scale := 1.0
	if c.v.TimeRunning > 0 && c.v.TimeRunning < c.v.TimeEnabled {
		scale = float64(c.v.TimeEnabled) / float64(c.v.TimeRunning)
	}
	f := func(x uint64) uint64 { return uint64(float64(x)*scale + 0.5) }
	return Sample{Instructions: f(c.v.Values[0]), Cycles: f(c.v.Values[1]), LLCMisses: f(c.v.Values[2])}, nil
}

// Close implements CounterSet.
func (c *perfCounters) Close() error { return c.g.Close() }
