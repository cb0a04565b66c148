package clock

// Ticks returns the CPU's time-stamp counter (the RDTSC instruction, not
// serialized): about 9 ns a read on the development VM against about
// 23 ns for Now. Ticks are not nanoseconds: convert differences with a
// rate from MeasureTickRate, and use them only where TicksStable says the
// counter runs at a constant rate and the reading thread stays on one CPU.
func Ticks() int64

// TicksAreTSC reports whether Ticks reads a hardware time-stamp counter
// (true on amd64) rather than falling back to Now.
const TicksAreTSC = true

// TicksOrdered is Ticks read only once every instruction before it has
// completed (LFENCE, then RDTSC): an atomic instruction's cache miss
// just before it, such as a dynamic loop's fetch of its next index,
// delays the reading instead of overlapping it. Code that computes on
// a fetched index cannot start before the fetch completes either.
func TicksOrdered() int64
