//go:build !amd64

package fpu

// vzeroupper does nothing: only amd64 has the penalty ClearUpper avoids
// (and cpu.X86.HasAVX is false elsewhere, so it is never called).
func vzeroupper() {}
