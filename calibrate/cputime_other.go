//go:build !linux

package calibrate

// threadCPUNs is unavailable here: the benchmark falls back to wall time.
func threadCPUNs() (ns int64, ok bool) { return 0, false }
