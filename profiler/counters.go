package profiler

// Sample is one reading of a CounterSet: the counts since its last Begin.
type Sample struct {
	Instructions uint64
	Cycles       uint64
	LLCMisses    uint64
}

// CounterSet is the hardware behind the per-section counters, kept behind
// an interface so that tests can feed fake counts. The profiler calls
// Begin at a top-level SecBegin, End at the matching SecEnd, and Close at
// Stop, all on the recording thread.
type CounterSet interface {
	// Begin resets the counters and starts counting.
	Begin() error
	// Pause stops counting without resetting.
	Pause() error
	// Resume goes on counting after Pause.
	Resume() error
	// End stops counting and returns the counts since Begin.
	End() (Sample, error)
	// Close releases the counters.
	Close() error
}

// CounterOpener opens a CounterSet for the calling thread. An error says
// why there are no counters; recording goes on without them.
type CounterOpener func() (CounterSet, error)
