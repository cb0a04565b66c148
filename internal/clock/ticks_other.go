//go:build !amd64

package clock

// Ticks returns Now on this architecture (there is no cheap hardware
// counter read here); the tick rate is then 1 ns per tick.
func Ticks() int64 { return nanotime() }

// TicksAreTSC reports whether Ticks reads a hardware time-stamp counter
// (true on amd64) rather than falling back to Now.
const TicksAreTSC = false

// TicksOrdered returns Now on this architecture, as Ticks does.
func TicksOrdered() int64 { return nanotime() }
