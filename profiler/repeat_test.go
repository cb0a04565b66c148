package profiler

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// loopEvents is a section of two tasks with a lock each; lens are the
// nine intervals in ticks, id the lock id of the second task.
func loopEvents(lens [9]int64, id int64) []record {
	return []record{
		{t: lens[0], op: opSecBegin, name: "s"},
		{t: lens[1], op: opTaskBegin, name: "a"},
		{t: lens[2], op: opLockBegin, arg: 1},
		{t: lens[3], op: opLockEnd, arg: 1},
		{t: lens[4], op: opTaskEnd},
		{t: lens[5], op: opTaskBegin, name: "a"},
		{t: lens[6], op: opLockBegin, arg: id},
		{t: lens[7], op: opLockEnd, arg: id},
		{t: lens[8], op: opTaskEnd},
	}
}

// recordWith runs one scripted recording of events (and a Stop after
// stop ticks) pooled into rp, at nsPerTick, and returns its leaf lengths.
func recordWith(t *testing.T, rp *Repeat, nsPerTick float64, events []record, stop int64) []int64 {
	t.Helper()
	events = append(events, record{t: 100, op: opSecEnd}, record{t: stop, op: opStop})
	return recordOn(t, scripted(0, nsPerTick), rp, events)
}

// recordCost is recordWith at a nanosecond a tick for a recording whose
// own overheads are cost ticks an event and lossNs at each task's end:
// its intervals are loopEvents(lens, 1)'s plus those.
func recordCost(t *testing.T, rp *Repeat, cost float64, lossNs int64, lens [9]int64, stop int64) []int64 {
	t.Helper()
	events := append(loopEvents(lens, 1), record{t: 100, op: opSecEnd}, record{t: stop, op: opStop})
	for i := range events {
		events[i].t += int64(cost)
		if events[i].op == opTaskEnd {
			events[i].t += lossNs
		}
	}
	p := scripted(cost, 1)
	p.lossNs = lossNs
	return recordOn(t, p, rp, events)
}

// recordOn runs the scripted recording of events on p, pooled into rp,
// and returns its leaf lengths.
func recordOn(t *testing.T, p *Profiler, rp *Repeat, events []record) []int64 {
	t.Helper()
	p.opt.Repeat = rp
	rp.begin()
	p.feed(events...)
	tr, err := p.finish()
	if err != nil {
		t.Fatal(err)
	}
	return leafLens(tr.Root)
}

// TestRepeatPoolsNet pools recordings whose clock reads cost different
// amounts: each recording's intervals hold its own reads' cost (and its
// overlap loss at task ends), which it measured as it started, so each
// interval is pooled net of its own recording's overheads, and a last
// recording of dear reads does not take them from the others' cheap
// lengths.
func TestRepeatPoolsNet(t *testing.T) {
	lens := [9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}
	want := []int64{1000, 200, 300, 400, 500, 200, 300, 400, 500, 100, 70}
	rp := &Repeat{}
	for i, c := range []struct {
		cost float64
		loss int64
	}{{20, 0}, {20, 0}, {80, 30}} {
		if got := recordCost(t, rp, c.cost, c.loss, lens, 70); !slices.Equal(got, want) {
			t.Errorf("recording %d (cost %.0f, loss %d): leaves %v, want %v", i+1, c.cost, c.loss, got, want)
		}
	}
}

func TestRepeatPools(t *testing.T) {
	rp := &Repeat{}
	// Leaves: root U, then per task U, L, U; section end U; root U.
	first := recordWith(t, rp, 1, loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), 70)
	if want := []int64{1000, 200, 300, 400, 500, 200, 300, 400, 500, 100, 70}; !slices.Equal(first, want) {
		t.Fatalf("first recording: leaves %v, want %v", first, want)
	}
	// The second recording is disturbed in other intervals, and faster
	// in some: every interval is now the shorter of the two.
	second := recordWith(t, rp, 1, loopEvents([9]int64{1000, 250, 290, 900, 500, 200, 300, 400, 480}, 1), 60)
	if want := []int64{1000, 200, 290, 400, 500, 200, 300, 400, 480, 100, 60}; !slices.Equal(second, want) {
		t.Errorf("second recording: leaves %v, want %v", second, want)
	}
	// A third at half a nanosecond a tick (another clock), compared in
	// nanoseconds: from three recordings on, every interval is the
	// second shortest, so a length that one recording alone undercuts
	// (this one's 900 and 50, the second's 480 and 60) no longer
	// counts.
	third := recordWith(t, rp, 0.5, loopEvents([9]int64{1800, 400, 580, 780, 1000, 400, 600, 800, 1000}, 1), 200)
	if want := []int64{1000, 200, 290, 400, 500, 200, 300, 400, 500, 100, 70}; !slices.Equal(third, want) {
		t.Errorf("third recording: leaves %v, want %v", third, want)
	}
	if rp.Runs() != 3 || rp.Mismatch() != "" {
		t.Errorf("Runs %d, Mismatch %q: want 3 and none", rp.Runs(), rp.Mismatch())
	}
}

func TestRepeatMismatch(t *testing.T) {
	lens := [9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}
	short := [9]int64{500, 100, 100, 100, 100, 100, 100, 100, 100}
	tests := []struct {
		name   string
		events []record
		want   []int64 // leaves of the mismatched recording
		reason string
	}{
		{
			// Lock 2 in the second task: pooled up to there, its own
			// lengths from there on.
			name: "other lock", events: loopEvents(short, 2),
			want:   []int64{500, 100, 100, 100, 100, 100, 100, 100, 100, 100, 70},
			reason: "its event 7 differs",
		},
		{
			name: "fewer events", events: loopEvents(short, 1)[:5],
			want:   []int64{500, 100, 100, 100, 100, 100, 70},
			reason: "its event 6 differs from the first recording's",
		},
		{
			name: "more events", events: append(loopEvents(short, 1), record{t: 100, op: opTaskBegin, name: "a"}, record{t: 100, op: opTaskEnd}),
			want:   []int64{500, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 70},
			reason: "its event 10 differs from the first recording's",
		},
	}
	for _, tc := range tests {
		rp := &Repeat{}
		recordWith(t, rp, 1, loopEvents(lens, 1), 70)
		got := recordWith(t, rp, 1, tc.events, 70)
		if !strings.Contains(rp.Mismatch(), tc.reason) {
			t.Errorf("%s: Mismatch %q, want it to say %q", tc.name, rp.Mismatch(), tc.reason)
		}
		if tc.name == "other lock" && !slices.Equal(got, tc.want) {
			t.Errorf("%s: leaves %v, want %v", tc.name, got, tc.want)
		}
		// A matching recording after a mismatched one pools again.
		recordWith(t, rp, 1, loopEvents(lens, 1), 70)
		if rp.Mismatch() != "" || rp.Runs() != 3 {
			t.Errorf("%s: after a matching recording Mismatch %q, Runs %d", tc.name, rp.Mismatch(), rp.Runs())
		}
	}
}

// TestRepeatCapped checks a pool capped at fewer events than a
// recording has: the first recording keeps only the events up to the
// cap, a later one pools those (each interval the shorter of the two)
// and keeps its own lengths after them, without a mismatch; a pool that
// holds a whole recording is not capped, and one recording running past
// it is a mismatch.
func TestRepeatCapped(t *testing.T) {
	rp := &Repeat{max: 4}
	first := recordWith(t, rp, 1, loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), 70)
	if want := []int64{1000, 200, 300, 400, 500, 200, 300, 400, 500, 100, 70}; !slices.Equal(first, want) {
		t.Fatalf("first recording: leaves %v, want %v", first, want)
	}
	if rp.Events() != 4 || !rp.Capped() {
		t.Fatalf("first recording: %d events kept, capped %v; want 4, true", rp.Events(), rp.Capped())
	}
	// The second is shorter in the second, third and sixth intervals,
	// longer in the fourth: only the first four are pooled.
	second := recordWith(t, rp, 1, loopEvents([9]int64{1000, 150, 250, 900, 500, 100, 300, 400, 480}, 1), 60)
	if want := []int64{1000, 150, 250, 400, 500, 100, 300, 400, 480, 100, 60}; !slices.Equal(second, want) {
		t.Errorf("second recording: leaves %v, want %v", second, want)
	}
	if rp.Mismatch() != "" {
		t.Errorf("second recording: mismatch %q past a capped pool", rp.Mismatch())
	}

	// A whole recording (eleven events with the section's end and the
	// Stop) under the cap: not capped, and a later recording with more
	// events is a mismatch.
	whole := &Repeat{max: 11}
	recordWith(t, whole, 1, loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), 70)
	if whole.Events() != 11 || whole.Capped() {
		t.Fatalf("whole recording: %d events kept, capped %v; want 11, false", whole.Events(), whole.Capped())
	}
	longer := append(loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), record{t: 50, op: opTaskBegin, name: "a"}, record{t: 50, op: opTaskEnd})
	recordWith(t, whole, 1, longer, 70)
	if whole.Mismatch() == "" {
		t.Error("a recording with more events than a whole pool: no mismatch")
	}
}

func TestPooledLen(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name          string
		first, second float64
		n             int
		want          float64
	}{
		{"one recording", 50, inf, 1, 50},
		{"two: the shorter", 50, 70, 2, 50},
		{"three: the second shortest", 50, 70, 3, 70},
		{"three, a microsecond apart: still jitter", 100_000, 101_000, 3, 101_000},
		{"three, 2% apart: still jitter", 200_000, 204_000, 4, 204_000},
		{"two struck alike: the shortest", 50_000, 62_000, 3, 50_000},
		{"a short interval struck twice: the shortest", 60, 15_000, 3, 60},
		{"second unknown (a version 1 file)", 50, inf, 3, 50},
	}
	for _, tt := range tests {
		if got := pooledLen(tt.first, tt.second, tt.n); got != tt.want {
			t.Errorf("%s: pooledLen(%g, %g, %d) = %g, want %g", tt.name, tt.first, tt.second, tt.n, got, tt.want)
		}
	}
}
