//go:build !linux

package cputime

// Thread is unavailable on this system: ok is always false.
func Thread() (ns int64, ok bool) { return 0, false }

// Process is unavailable on this system: ok is always false.
func Process() (ns int64, ok bool) { return 0, false }

// Children is unavailable on this system: ok is always false.
func Children() (ns int64, ok bool) { return 0, false }
