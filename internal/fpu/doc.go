// Package fpu keeps a goroutine's floating-point code at full speed on
// CPUs that slow it down after a thread switch.
//
// On amd64, Go compiles scalar float64 arithmetic to legacy SSE
// instructions. When the upper halves of the vector registers are in use
// ("dirty": an AVX instruction wrote them and no VZEROUPPER followed),
// every such instruction also carries a dependency on the register's
// upper half, and dependent floating-point chains run markedly slower.
// A goroutine that a parallel team starts on a thread that was asleep
// meets that state often: a chain of multiply-adds can run a third
// slower on a freshly started goroutine than on the goroutine that
// started it, for more than a millisecond, and one VZEROUPPER at the
// goroutine's start takes it back (docs/measurements.md). The Go runtime's own AVX2 routines
// (memmove, memclr) end with VZEROUPPER, which is why a goroutine that
// copies or allocates memory recovers by itself and a tight arithmetic
// loop does not.
//
// ClearUpper executes VZEROUPPER where the CPU has AVX and does nothing
// elsewhere. Package par calls it at the start of every goroutine it
// starts, so the loops a user parallelizes with par run at the speed they
// ran serially.
package fpu
