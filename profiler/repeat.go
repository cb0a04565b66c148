package profiler

import (
	"cmp"
	"fmt"
	"math"
)

// Repeat pools several recordings of one deterministic run, so that each
// interval of the program tree is the one length that its recordings
// agree on: the shorter of two, and from three on the second shortest
// of them unless it lies a hiccup above the shortest (pooledLen).
//
// A recording measures wall time, so anything else the core does while a
// task runs (a timer interrupt, another process, the garbage collector)
// lengthens the
// interval it falls into. One disturbed task hardly moves the total, but
// where tasks contend for a lock it shifts the phase between threads
// that an emulator replays, and predicts contention the real run does
// not have. Such disturbances strike different intervals in different
// recordings, and they only ever add time, so a length that another
// recording matches or undercuts is an undisturbed one. The shortest of
// all is not: an interval of tens of nanoseconds also varies both ways
// from recording to recording (a spin or a clock read that ends a step
// earlier or later, a cache line that happens to be there), and the
// shortest of several such lengths is below what the interval takes on
// average, so a loop of fine-grained tasks pooled by its shortest adds
// up to less than its serial run.
//
// Give the same *Repeat in Options.Repeat to each recording of the run,
// one after another (not concurrently): the first one keeps every
// event's interval; each later one checks that its events are the first
// one's (the same calls, names and lock ids, in the same order) and
// builds its tree from the pooled length of every interval so far: the
// last recording's tree is the pool's.
// Where the run does not repeat itself, pooling stops at the first event
// that differs, the rest of that recording keeps its own lengths, and
// Mismatch says so; a caller then does better to keep the recording with
// the least total work. Counters and the tree's other Meta are each
// recording's own.
//
// A Repeat keeps 48 bytes per event, for the first MaxRepeatEvents
// events of a recording only (the recorded program carries them): a
// loop of 10^8 tasks makes 2·10^8 events, 9.6 GB. Past them the first
// recording keeps no more, and each later one pools its events up to
// there and keeps its own lengths after (Capped says so); Mismatch
// stays "".
type Repeat struct {
	ev   repEvents
	runs int    // recordings finished
	pos  int    // events of the current recording seen
	off  string // why the current recording does not pool
	// max is the most events kept; 0 means MaxRepeatEvents (tests set
	// less).
	max int
	// raw says the lengths include each recording's own overheads (a
	// file of version 2 or less; see pool).
	raw bool
}

// MaxRepeatEvents is how many events of a recording a Repeat pools at
// most: 192 MiB of them, the events of a loop of about two million
// tasks.
const MaxRepeatEvents = 1 << 22

// limit returns the most events r keeps.
func (r *Repeat) limit() int { return cmp.Or(r.max, MaxRepeatEvents) }

// Capped reports whether r holds the first recording's events only up
// to its limit (MaxRepeatEvents): a later recording pools those and
// keeps its own lengths after them.
func (r *Repeat) Capped() bool {
	n := r.ev.len()
	return n >= r.limit() && r.ev.at(n-1).op != opStop
}

// Events returns the number of events r pools.
func (r *Repeat) Events() int { return r.ev.len() }

// repBlock is how many events a block of repEvents holds.
const repBlock = 1 << 16

// repEvents holds events in blocks of repBlock, so that keeping more
// never copies those kept (a slice grown by append copies its whole
// contents each time it fills, and holds both copies meanwhile).
type repEvents struct {
	blocks [][]repEvent
	n      int
}

func (v *repEvents) len() int { return v.n }

// at returns event i (< len).
func (v *repEvents) at(i int) *repEvent { return &v.blocks[i/repBlock][i%repBlock] }

// add appends e.
func (v *repEvents) add(e repEvent) {
	if v.n%repBlock == 0 && v.n/repBlock == len(v.blocks) {
		v.blocks = append(v.blocks, make([]repEvent, repBlock))
	}
	v.blocks[v.n/repBlock][v.n%repBlock] = e
	v.n++
}

// reset empties v, keeping its first block.
func (v *repEvents) reset() {
	if len(v.blocks) > 1 {
		v.blocks = v.blocks[:1]
	}
	v.n = 0
}

// repEvent is one event of the first recording with the two shortest
// lengths of the interval it closes over the recordings so far, in
// nanoseconds net of each recording's own overheads (see pool; ns2 is
// +Inf after one recording).
type repEvent struct {
	ns   float64
	ns2  float64
	name string
	arg  int64
	op   op
}

// Runs returns the number of recordings finished with r.
func (r *Repeat) Runs() int { return r.runs }

// Mismatch returns why the last recording finished with r could not be
// pooled with the earlier ones, or "" when it was (or was the first).
func (r *Repeat) Mismatch() string { return r.off }

// begin starts a recording.
func (r *Repeat) begin() {
	r.pos, r.off = 0, ""
	if r.runs == 0 {
		// A first recording that failed leaves no events behind.
		r.ev.reset()
	}
}

// pool takes one event of the current recording: the first recording
// keeps it; a later one that matches the first so far adds its length to
// the event's two shortest and sets its own interval (rec.from moves) to
// the pooled length (pooledLen). nsPerTick converts the recording's
// clock ticks; ownNs is what the recording subtracts from the interval
// as its own (the event's cost, and at a task's end the overlap loss),
// as it measured them when it started.
//
// Lengths are pooled net of each recording's own overheads: a clock
// read can cost several times more in one recording than in the next
// (a virtual machine's clock reads can slow for a while), and each
// recording measures that as it starts. Pooled raw, the intervals of the
// recordings with the cheap reads less the costs of one with dear reads
// would leave a fine-grained task nothing. A Repeat read from a file of
// version 2 or less pools raw lengths, as it was written.
func (r *Repeat) pool(rec *record, nsPerTick, ownNs float64) {
	if r.raw {
		ownNs = 0
	}
	ns := float64(rec.t-rec.from)*nsPerTick - ownNs
	i := r.pos
	r.pos++
	if r.runs == 0 {
		if i < r.limit() {
			r.ev.add(repEvent{ns: ns, ns2: math.Inf(1), name: rec.name, arg: rec.arg, op: rec.op})
		}
		return
	}
	if r.off != "" {
		return
	}
	// Every recording ends with its one Stop event, so a recording
	// that matches the first event for event has as many events: it
	// can run past the first's events only where they were capped,
	// and then keeps its own lengths after them.
	if i >= r.ev.len() {
		// Decided at the first event past them: a recording that runs
		// on past an uncapped pool stops pooling (off), so any later
		// event here is past a capped one.
		if i == r.ev.len() && !r.Capped() {
			r.off = fmt.Sprintf("it has more events than the first, %d", r.ev.len())
		}
		return
	}
	e := r.ev.at(i)
	// A SecEnd's arg carries its counter sample's index, which may
	// differ between recordings; only its nowait bit must match.
	arg, earg := rec.arg, e.arg
	if rec.op == opSecEnd {
		arg, earg = arg&1, earg&1
	}
	if e.op != rec.op || arg != earg || e.name != rec.name {
		r.off = fmt.Sprintf("its event %d differs from the first recording's", i+1)
		return
	}
	if ns < e.ns {
		e.ns, e.ns2 = ns, e.ns
	} else {
		e.ns2 = min(e.ns2, ns)
	}
	if pooled := pooledLen(e.ns, e.ns2, r.runs+1); pooled != ns {
		rec.from = rec.t - int64(math.Round((pooled+ownNs)/nsPerTick))
	}
}

// pooledLen returns the length a Repeat gives an interval whose shortest
// two lengths over n recordings are first and second (second is +Inf for
// n = 1): the only one for one recording, the shorter for two (with one
// of two disturbed, the other is the undisturbed length), and from three
// on the second shortest, which a single disturbed recording cannot
// lower and which, unlike the shortest, is not pulled down by intervals
// that vary both ways between recordings. Where the second shortest
// exceeds the shortest by more than such variation does (hiccupNs, or
// hiccupShare of the interval), two recordings were struck in the same
// interval, as a collection the run triggers at the same allocation
// does; the shortest is then the undisturbed length.
func pooledLen(first, second float64, n int) float64 {
	if n <= 2 || second-first > max(hiccupNs, hiccupShare*first) {
		return first
	}
	return second
}

// hiccupNs and hiccupShare bound how far apart the lengths of one
// interval in two undisturbed recordings lie: clock steps and cache
// effects move an interval by tens of nanoseconds or a percent, while a
// timer interrupt, a descheduling or a collection takes microseconds.
const (
	hiccupNs    = 1000
	hiccupShare = 0.02
)

// finish ends a recording that built its tree.
func (r *Repeat) finish() { r.runs++ }
