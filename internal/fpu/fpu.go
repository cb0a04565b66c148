package fpu

import "golang.org/x/sys/cpu"

// hasAVX is whether VZEROUPPER exists on this CPU; it never changes.
var hasAVX = cpu.X86.HasAVX

// ClearUpper zeroes the upper halves of the vector registers (VZEROUPPER)
// where the CPU has AVX, so that the calling goroutine's SSE
// floating-point code runs without the dirty-upper-state penalty (see the
// package documentation). It costs a few nanoseconds, touches no memory
// and leaves every value Go code holds intact: Go keeps no live values in
// vector registers across a function call. Elsewhere it does nothing.
func ClearUpper() {
	if hasAVX {
		vzeroupper()
	}
}
