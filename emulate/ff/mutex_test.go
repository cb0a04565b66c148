package ff

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// TestMutexModel checks the sync.Mutex model of release on hand-computed
// schedules (static, two workers, one task each, no other overheads).
func TestMutexModel(t *testing.T) {
	// Worker 0 runs a: L 5000, U 10, L 5000; worker 1 runs b: U 1, L 10.
	barge := tree.Sec("barge",
		tree.Task("a", tree.L(1, 5000), tree.U(10), tree.L(1, 5000)),
		tree.Task("b", tree.U(1), tree.L(1, 10)))
	// Worker 1 asks for the lock 2500 before worker 0 lets it go.
	ramp := tree.Sec("ramp",
		tree.Task("a", tree.L(1, 5000), tree.U(10000)),
		tree.Task("b", tree.U(2500), tree.L(1, 10), tree.U(20000)))
	// Worker 0 takes the lock 400 times back to back.
	starve := tree.Sec("starve",
		tree.Task("a", tree.Run(400, tree.L(1, 5000))),
		tree.Task("b", tree.U(1), tree.L(1, 10)))
	tests := []struct {
		name     string
		sec      *tree.Node
		ov       machine.Overheads
		want     float64
		handoffs int
	}{
		{
			// The ideal FIFO lock: b gets it at 5000 (5000-5010), a
			// waits for it and runs its second L 5010-10010.
			name: "ideal", sec: barge, want: 10010, handoffs: 1,
		},
		{
			// b parked at 1; the Unlock at 5000 wakes it, 100 later.
			// Meanwhile a takes the free lock again at 5010 (5010-10010);
			// b finds it taken at 5100 and parks again; the Unlock at
			// 10010 wakes it: L 10110-10120.
			name: "barging", sec: barge, ov: machine.Overheads{LockHandoffNs: 100},
			want: 10120, handoffs: 2,
		},
		{
			// As barging, with each waking Unlock costing the unlocker
			// 50: a's U after the Unlock at 5000 ends at 5060, its
			// second L runs 5060-10060, b, back at 5100, parks again,
			// and the Unlock at 10060 wakes it: L 10160-10170 (a's own
			// end moves to 10110).
			name: "unlock wake", sec: barge, ov: machine.Overheads{LockHandoffNs: 100, LockWakeNs: 50},
			want: 10170, handoffs: 2,
		},
		{
			// As barging, but b had waited only 4999 when the Unlock
			// at 5000 came, inside the doze (6000): woken 40 later, at
			// 5040, it finds a holding the lock again and parks; the
			// Unlock at 10010 finds it waiting 4970, dozing again: L
			// 10050-10060.
			name: "doze", sec: barge, ov: machine.Overheads{LockHandoffNs: 100, LockDozeNs: 6000, LockDozeHandoffNs: 40},
			want: 10060, handoffs: 2,
		},
		{
			// As doze, with the waking Unlocks costing the unlocker
			// the doze's 20 (not the 50 of a slept waiter): a's second
			// L runs 5030-10030, b (back at 5040) parks again, and the
			// Unlock at 10030 wakes it after 40: L 10070-10080.
			name: "doze unlock wake", sec: barge, ov: machine.Overheads{LockHandoffNs: 100, LockWakeNs: 50, LockDozeNs: 6000, LockDozeHandoffNs: 40, LockDozeWakeNs: 20},
			want: 10080, handoffs: 2,
		},
		{
			// As barging: both of b's waits (4999 and 4910) are past
			// a doze of 3000, and both hand-offs take 100.
			name: "slept past the doze", sec: barge, ov: machine.Overheads{LockHandoffNs: 100, LockDozeNs: 3000, LockDozeHandoffNs: 40},
			want: 10120, handoffs: 2,
		},
		{
			// b waited 2500, inside the spin window's ramp (2000 to
			// 4000): woken after 100·(2500-2000)/2000 = 25, L
			// 5025-5035, U until 25035.
			name: "ramp", sec: ramp, ov: machine.Overheads{LockHandoffNs: 100, LockSpinNs: 2000, LockSpinRampNs: 2000},
			want: 25035, handoffs: 1,
		},
		{
			// a barges in at every Unlock (5000·k) before b, woken, comes
			// back 100 later; at its retry at 1000100, b has waited over
			// StarvationNs: the mutex starves, and the Unlock at 1005000
			// hands b the lock directly (1005000-1005010); a spins for
			// it and then runs its other 199 Ls: 1005010 + 199·5000.
			name: "starvation", sec: starve, ov: machine.Overheads{LockHandoffNs: 100},
			want: 2000010, handoffs: 201,
		},
	}
	for _, tc := range tests {
		r := emulateSec(t, tc.sec, 2, "static", tc.ov, 0)
		if r.parallel != tc.want || r.nHandoff != tc.handoffs {
			t.Errorf("%s: time %v with %d hand-offs, want %v with %d", tc.name, r.parallel, r.nHandoff, tc.want, tc.handoffs)
		}
	}
}

// yieldSection is TestStarvationYield's section: a, 400 × (L 5000,
// U 1000), on worker 0 and b, U 1 and L 10, on worker 1, both on lock 1,
// with a hand-off latency of 2000.
func yieldSection() (*tree.Node, machine.Overheads) {
	var ch []*tree.Node
	for range 400 {
		ch = append(ch, tree.L(1, 5000), tree.U(1000))
	}
	sec := tree.Sec("yield", tree.Task("a", ch...), tree.Task("b", tree.U(1), tree.L(1, 10)))
	return sec, machine.Overheads{LockHandoffNs: 2000}
}

// TestStarvationYield checks the starvation-mode hand-off: the unlocker
// yields its core to the waiter and runs the rest of its work once a core
// takes it again, the woken idle core (after the wake-up latency) or the
// waiter's core when the waiter is done, whichever comes first.
func TestStarvationYield(t *testing.T) {
	sec, ov := yieldSection()
	// a's k-th L runs 6000(k-1) to 6000k-1000; each Unlock wakes b,
	// which comes back 2000 later, at 6000k+1000, to find that a took
	// the lock again at 6000k. At its retry at 1003000 (k = 167) b has
	// waited over StarvationNs (from W+1): the mutex starves, and the
	// Unlock at 1007000 hands b the lock on a's core (b: 1007000 to
	// 1007010). a, which had run on to its next request at 1008000,
	// goes back to the queue with 1000 left: with wake-up latency W it
	// gets the idle core at 1007000+W or a's own core at 1007010, and
	// its other 232 rounds of 6000 end 1000 + 232·6000 later. 167
	// wake-ups and one direct hand-off.
	for _, tc := range []struct{ wake, want float64 }{
		{0, 2400000},
		{5, 2400005},
		{50, 2400010},
	} {
		r := emulateSec(t, sec, 2, "static", ov, tc.wake)
		if r.parallel != tc.want || r.nHandoff != 168 {
			t.Errorf("wake-up latency %v: time %v with %d hand-offs, want %v with 168", tc.wake, r.parallel, r.nHandoff, tc.want)
		}
	}
}

// TestStarvationYieldTimeline draws TestStarvationYield's schedule: no
// two spans of one core overlap (the waiter takes the unlocker's core at
// the hand-off, and the unlocker's work past it moves to the core that
// takes it next), and every nanosecond of work is drawn once.
func TestStarvationYieldTimeline(t *testing.T) {
	sec, ov := yieldSection()
	for _, wake := range []float64{0, 5, 50} {
		var spans []emulate.Span
		r, err := emulateOnce(nil, mustCompile(t, sec), 2, rule(t, "static"), 1, ov, wake, &spans, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var work float64
		byCore := map[int][]emulate.Span{}
		for _, s := range spans {
			byCore[s.Thread] = append(byCore[s.Thread], s)
			if s.Kind == emulate.SpanTask || s.Kind == emulate.SpanLock {
				work += s.EndNs - s.StartNs
			}
			if s.EndNs > r.parallel {
				t.Errorf("wake %v: span %+v ends after the section (%v)", wake, s, r.parallel)
			}
		}
		if work != 400*6000+11 {
			t.Errorf("wake %v: %v ns of work drawn, want %v", wake, work, 400*6000+11)
		}
		for c, ss := range byCore {
			slices.SortFunc(ss, func(a, b emulate.Span) int { return cmp.Compare(a.StartNs, b.StartNs) })
			for i := 1; i < len(ss); i++ {
				if ss[i].StartNs < ss[i-1].EndNs {
					t.Errorf("wake %v: core %d: %+v overlaps %+v", wake, c, ss[i], ss[i-1])
				}
			}
		}
	}
}

// TestHandoffSpread checks that the lock hand-offs of one run take
// successive positions of the wake-up latency distribution: the first
// the run's own (its wake-up latency's), each next one 1/φ further on
// (mod 1), so that no run repeats one latency at every hand-off.
func TestHandoffSpread(t *testing.T) {
	// TestMutexModel's barging section: b asks for the lock at 1+W,
	// a holds it 0-5000, barges in again at 5010 (to 10010) while b
	// is being woken, and b gets it at the second Unlock's hand-off.
	barge := tree.Sec("barge",
		tree.Task("a", tree.L(1, 5000), tree.U(10), tree.L(1, 5000)),
		tree.Task("b", tree.U(1), tree.L(1, 10)))
	// p90 = 2·p50: σ = ln 2 / z₀.₉ = 0.54086.
	ov := machine.Overheads{LockHandoffNs: 100, WakeP50Ns: 1000, WakeP90Ns: 2000}
	tests := []struct {
		name string
		wake float64
		// second is the second hand-off's latency, by hand: 100·e^(σz)
		// at the position u₀ + 1/φ − 1 (u₀ = Φ(ln(wake/p50)/σ)).
		second float64
		// ownWake is the run's wake-up latency at the same u₀ for the
		// profile with the hand-off's own spread.
		ownWake float64
	}{
		// u₀ = 0.5: the first hand-off takes the median, 100 (b comes
		// back at 5100, after a barged in); the second, at u =
		// 0.118034 (z = −1.18487), 52.684.
		{"median run", 1000, 52.684, 500},
		// wake = p90: u₀ = 0.9, first 200 (b back at 5200); the
		// second at u = 0.518034 (z = 0.045220), 102.476.
		{"p90 run", 2000, 102.476, 2000},
	}
	// The hand-off's own spread (p90 = 2·p50) where the profile has
	// one, with a wider wake-up spread (p50 500, p90 2000: the runs at
	// the wake-up median and p90 start at u₀ = 0.5 and 0.9, and b, asking
	// at 501 or 2001, parks either way): the same hand-offs.
	own := machine.Overheads{LockHandoffNs: 100, LockHandoffP90Ns: 200, WakeP50Ns: 500, WakeP90Ns: 2000}
	for _, tc := range tests {
		for _, c := range []struct {
			name string
			ov   machine.Overheads
			wake float64
		}{{"wake-up spread", ov, tc.wake}, {"own spread", own, tc.ownWake}} {
			r := emulateSec(t, barge, 2, "static", c.ov, c.wake)
			want := 10010 + tc.second + 10
			if math.Abs(r.parallel-want) > 0.002 || r.nHandoff != 2 {
				t.Errorf("%s, %s: time %v with %d hand-offs, want %.3f with 2", tc.name, c.name, r.parallel, r.nHandoff, want)
			}
		}
	}
	// The hand-off's own spread without a wake-up latency: the median
	// run's hand-offs.
	alone := machine.Overheads{LockHandoffNs: 100, LockHandoffP90Ns: 200}
	if r, want := emulateSec(t, barge, 2, "static", alone, 0), 10010+52.684+10; math.Abs(r.parallel-want) > 0.002 || r.nHandoff != 2 {
		t.Errorf("own spread, no wake-up: time %v with %d hand-offs, want %.3f with 2", r.parallel, r.nHandoff, want)
	}
}

// TestLockNoise checks the machine's noise on hand-computed schedules:
// two workers, one task each, the ideal lock otherwise. At 1000 hiccups
// a second of 10 µs each (no spread), a hold loses 1% (the mean share
// the recording carries) and gains 10 µs for every 1 ms of hold time, the
// run's first hiccup coming after 0.5 ms (the median run's position).
func TestLockNoise(t *testing.T) {
	ov := machine.Overheads{NoiseHz: 1000, NoiseP50Ns: 10000, NoiseP90Ns: 10000}
	tests := []struct {
		name string
		sec  *tree.Node
		want float64
	}{
		// Holds of 750 µs: 742.5 µs each, and a hiccup in each (the
		// first at 0.5 ms of hold, the second at 1.5 ms): 2 × 752.5 µs.
		{"long holds", tree.Sec("s", tree.Task("a", tree.L(1, 750000)), tree.Task("b", tree.L(1, 750000))), 1505000},
		// Holds of 250 µs: the first none (0.5 ms comes later), the
		// second one: 247.5 + 257.5 µs.
		{"short holds", tree.Sec("s", tree.Task("a", tree.L(1, 250000)), tree.Task("b", tree.L(1, 250000))), 505000},
		// No lock: U nodes get no hiccups.
		{"no locks", tree.Sec("s", tree.Task("a", tree.U(750000)), tree.Task("b", tree.U(750000))), 750000},
	}
	for _, tc := range tests {
		r := emulateSec(t, tc.sec, 2, "static", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: time %v, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestLockSwitch checks LockSwitchNs on a hand-computed schedule: three
// spawned tasks of one 1000 ns critical section each on 2 cores, the
// ideal lock otherwise (no hand-off latency) and a spin window of 5 µs.
// a takes the lock at 0; b asks for it while c waits for a core, so it
// parks at once instead of spinning, and when the lock passes to it at
// 1000 it is switched in first (100): 1100-2100; c asked with nobody
// else waiting for a core and spun: 2100-3100.
func TestLockSwitch(t *testing.T) {
	sec := tree.Sec("s",
		tree.Task("a", tree.L(1, 1000)), tree.Task("b", tree.L(1, 1000)), tree.Task("c", tree.L(1, 1000)))
	for _, tc := range []struct {
		sw, want float64
	}{{0, 3000}, {100, 3100}} {
		ov := machine.Overheads{LockSpinNs: 5000, LockSwitchNs: tc.sw}
		r := emulateSec(t, sec, 2, "spawn", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("LockSwitchNs %v: time %v, want %v", tc.sw, r.parallel, tc.want)
		}
	}
}

// TestLockMigrate checks the cost of a lock taken on another core than
// it was last taken on (Overheads.LockMigrateNs), and the share
// crowdShare(m) of another move that it pays while m more goroutines
// wait, m counting at most the team's threads less two, worked out by
// hand.
func TestLockMigrate(t *testing.T) {
	ov := machine.Overheads{LockMigrateNs: 60}
	two := tree.Sec("s", tree.Task("a", tree.L(1, 100)), tree.Task("b", tree.L(1, 100)))
	four := tree.Sec("s", tree.Task("a", tree.L(1, 100)), tree.Task("b", tree.L(1, 100)),
		tree.Task("c", tree.L(1, 100)), tree.Task("d", tree.L(1, 100)))
	for _, tc := range []struct {
		name    string
		threads int
		sec     *tree.Node
		want    float64
	}{
		// Two workers: a takes the lock at 0 (never taken before: it
		// stays), b asks at 0 and gets it at 100 on the other core:
		// 160-260.
		{"two cores", 2, two, 260},
		// One worker takes it twice on its own core: 200.
		{"one core", 1, two, 200},
		// a holds 0-100 and pays 60 at its Unlock for the Locks of
		// b, c and d (steal): free at 160. b takes it with c and d
		// waiting: 60 + 60·2/4, 250-350; c with d waiting: 60 +
		// 60·1/3, 430-530; d alone: 60, 590-690.
		{"four cores", 4, four, 690},
		// The same on three cores: a, b and c ask at 0, d after a's
		// task, at 160 (after the steal): b takes the lock with c
		// and d waiting, but only one of them can be on a core of
		// its own: 60 + 60·1/3, 240-340; c with d waiting: 60 +
		// 60·1/3, 420-520; d: 580-680.
		{"three cores", 3, four, 680},
	} {
		r := emulateSec(t, tc.sec, tc.threads, "static:1", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestLockSameCore checks, worked out by hand, that a Lock on the core
// that took the lock last pays the crowd's share of a move,
// crowdShare(m), while m more goroutines wait for it on cores of their
// own (their checks pull the line away between its Unlock and its next
// Lock), and nothing on two threads.
func TestLockSameCore(t *testing.T) {
	ov := machine.Overheads{LockMigrateNs: 60, LockHandoffNs: 3}
	// Default's spin window: checks every 725 ns from a request.
	a := tree.Task("a", tree.L(1, 10), tree.U(5), tree.L(1, 10), tree.U(2000))
	b := tree.Task("b", tree.U(1), tree.L(1, 10))
	c := tree.Task("c", tree.U(2), tree.L(1, 10))
	for _, tc := range []struct {
		name    string
		threads int
		sec     *tree.Node
		want    float64
	}{
		// a holds 0-10; b asks at 1 and spins; c asks at 2 while b
		// spins: a's Unlock pays 60 (steal), free at 70. a takes the
		// lock again at 75 on its own core, b and c waiting, one of
		// them counted (threads − 2): 60·1/3 = 20, 75-105, and a ends
		// at 2105. (b takes it at its check at 726, c at 1452.)
		{"three cores", 3, tree.Sec("s", a, b, c), 2105},
		// Two cores: a takes it again at 15 with b waiting, which
		// counts for nothing: 15-25, and a ends at 2025.
		{"two cores", 2, tree.Sec("s", a, b), 2025},
	} {
		r := emulateSec(t, tc.sec, tc.threads, "static", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestLockSteal checks, worked out by hand, that a Lock from another core
// during a hold for which another waiter already spins makes the
// holder's Unlock bring the lock's line back (LockMigrateNs more, once a
// hold), and that a single waiter does not (a hand-off of two cores
// costs one move, which the next Lock pays).
func TestLockSteal(t *testing.T) {
	ov := machine.Overheads{LockMigrateNs: 60}
	// a holds 0-100; b asks at 0 and spins; c asks at 10, while b
	// spins: a's Unlock pays 60, the lock is free at 160; b takes it
	// on another core while c waits (60 and a third of 60 for the
	// crowd, crowdShare(1)), 240-340; c, who asked during a's hold,
	// not b's, takes it at 340 on another core: 400-500. Without c's
	// request during a's hold: 100, 160-260, 320-420.
	three := tree.Sec("s", tree.Task("a", tree.L(1, 100)), tree.Task("b", tree.L(1, 100)), tree.Task("c", tree.U(10), tree.L(1, 100)))
	// c asks at 120, during b's hold (160-260), while nobody else
	// spins: no steal; c takes it at 260 + 60, 320-420.
	late := tree.Sec("s", tree.Task("a", tree.L(1, 100)), tree.Task("b", tree.L(1, 100)), tree.Task("c", tree.U(120), tree.L(1, 100)))
	for _, tc := range []struct {
		name string
		sec  *tree.Node
		want float64
	}{
		{"second waiter during the hold", three, 500},
		{"one waiter at a time", late, 420},
	} {
		r := emulateSec(t, tc.sec, 3, "static", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestSpinCheck checks that a spinning waiter sees an Unlock only at its
// next check of the lock (spinCheck), counted from its request, and that
// the lock is anybody's meanwhile, worked out by hand: the spin window is
// Default's 2900 ns, checks every 725 ns.
func TestSpinCheck(t *testing.T) {
	ov := machine.Overheads{LockHandoffNs: 3}
	// a: L 0-10, U 10-15, L again at 15: free, a barges, 15-25.
	// b asked at 1, spins, checks at 1 + 725 and takes the lock, free
	// since 25: 726-736.
	sec := tree.Sec("s", tree.Task("a", tree.L(1, 10), tree.U(5), tree.L(1, 10)), tree.Task("b", tree.U(1), tree.L(1, 10)))
	r := emulateSec(t, sec, 2, "static", ov, 0)
	if r.parallel != 736 || r.nHandoff != 0 {
		t.Errorf("%v ns, %d hand-offs; want 736 and none", r.parallel, r.nHandoff)
	}
	// A spinner's checks count from its request, and they do not start
	// over when another goroutine took the lock first: b asks at 1 and
	// checks at 726, 1451, 2176 and 2901, each time during one of a's
	// holds (710-810, 1410-1510, 2110-2210, 2810-3510); past the window
	// it has parked, and a's Unlock at 3510 wakes it, 3 ns later: b
	// 3513-3523, one hand-off.
	parks := tree.Sec("s", tree.Task("a", tree.L(1, 10), tree.U(700), tree.L(1, 100), tree.U(600), tree.L(1, 100),
		tree.U(600), tree.L(1, 100), tree.U(600), tree.L(1, 700)), tree.Task("b", tree.U(1), tree.L(1, 10)))
	if r := emulateSec(t, parks, 2, "static", ov, 0); r.parallel != 3523 || r.nHandoff != 1 {
		t.Errorf("spins used up: %v ns, %d hand-offs; want 3523 and 1", r.parallel, r.nHandoff)
	}
	// The window measured (LockSpinNs, 2800) short of the last check
	// (4 × LockCheckNs, 2900): a holds the lock 0-2850, b asks at 1,
	// still spins at a's Unlock, and takes the lock at its fourth check,
	// 2901-2911, with no hand-off (with the window at 2800, b would have
	// parked and been woken 3 ns after 2850).
	late := tree.Sec("s", tree.Task("a", tree.L(1, 2850)), tree.Task("b", tree.U(1), tree.L(1, 10)))
	lastCheck := ov
	lastCheck.LockSpinNs, lastCheck.LockCheckNs = 2800, 725
	if r := emulateSec(t, late, 2, "static", lastCheck, 0); r.parallel != 2911 || r.nHandoff != 0 {
		t.Errorf("last check past the window: %v ns, %d hand-offs; want 2911 and none", r.parallel, r.nHandoff)
	}
	// Of two spinners, the one whose check comes first after the Unlock
	// takes the lock, not the one that asked first: a holds it 0-1000;
	// b asked at 1 (next check 1451), c at 300 (next check 1025): c
	// 1025-1035, then b 1451-1461.
	first := tree.Sec("s", tree.Task("a", tree.L(1, 1000)), tree.Task("b", tree.U(1), tree.L(1, 10)), tree.Task("c", tree.U(300), tree.L(1, 10)))
	if r := emulateSec(t, first, 3, "static", ov, 0); r.parallel != 1461 {
		t.Errorf("first checker: %v ns, want 1461", r.parallel)
	}
	// The ideal lock (no hand-off cost) passes it at once: b 10-20, a
	// asks at 15 and gets it at 20: 20-30.
	ov.LockHandoffNs = 0
	if r := emulateSec(t, sec, 2, "static", ov, 0); r.parallel != 30 {
		t.Errorf("ideal lock: %v ns, want 30", r.parallel)
	}
}

// TestLockLanding checks, worked out by hand, that a Lock from another
// core than the lock's last one is in flight for a move (LockMigrateNs)
// before its compare-and-swap lands: on a lock held at the request, it
// sees an Unlock before then as it lands, and otherwise spins as before;
// on a free lock, the lock stays free meanwhile, for a Lock on its own
// core to take first. Checks every 700 ns, moves of 300 ns.
func TestLockLanding(t *testing.T) {
	ov := machine.Overheads{LockMigrateNs: 300, LockHandoffNs: 3, LockCheckNs: 700, LockSpinNs: 2800}
	b := tree.Task("b", tree.U(50), tree.L(1, 100), tree.U(2000))
	for _, tc := range []struct {
		name string
		a    *tree.Node
		want float64
	}{
		// a holds 0-100: b takes the lock as its compare-and-swap
		// lands, 350-450 with no move more, and ends at 2450 (with a
		// spin check, 750 + 300 + 100 + 2000 = 3150).
		{"unlocked in flight", tree.Task("a", tree.L(1, 100), tree.U(1000)), 2450},
		// a holds 0-400: b's compare-and-swap lands during the hold
		// and fails; b takes the lock at its first check, 750, pays
		// the move: 1050-1150, and ends at 3150.
		{"landed during the hold", tree.Task("a", tree.L(1, 400), tree.U(1000)), 3150},
		// a holds 0-100 and, on its own core, again 200-300 (the lock
		// is free meanwhile): free again when b's lands, 350-450.
		{"barged, free as it lands", tree.Task("a", tree.L(1, 100), tree.U(100), tree.L(1, 100), tree.U(1000)), 2450},
		// a holds 0-100 and 200-400: b's lands at 350 and finds the
		// lock taken; its next check is at 750: 1050-1150, 3150.
		{"barged, held as it lands", tree.Task("a", tree.L(1, 100), tree.U(100), tree.L(1, 200), tree.U(1000)), 3150},
	} {
		r := emulateSec(t, tree.Sec("s", tc.a, b), 2, "static", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
	// On a free lock: a holds it 0-100 and asks again at 250, on its
	// own core; b asks at 120, from the other core, and is in flight
	// until 420.
	c := tree.Task("b", tree.U(120), tree.L(1, 100), tree.U(500))
	for _, tc := range []struct {
		name string
		a    *tree.Node
		want float64
	}{
		// a takes the lock during b's flight, 250-350; b's lands on
		// it free: 420-520, and ends at 1020; a at 1350. (Taken at
		// 120 with the move in the hold, b would hold it 120-520, and
		// a, asking at 250, would take it as its own lands, 550-650,
		// and end at 1650.)
		{"taken and free again in flight", tree.Task("a", tree.L(1, 100), tree.U(150), tree.L(1, 100), tree.U(1000)), 1350},
		// a holds it 250-650: b's lands on it taken, b spins (checks
		// from its request: 820) and takes it then, paying the move:
		// 1120-1220, ends at 1720; a at 1650.
		{"taken as it lands", tree.Task("a", tree.L(1, 100), tree.U(150), tree.L(1, 400), tree.U(1000)), 1720},
	} {
		r := emulateSec(t, tree.Sec("s", tc.a, c), 2, "static", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestIndexedLockLanding checks, worked out by hand as TestLockLanding,
// the flight of a Lock of an indexed lock (tree.Node.Indexed): half the
// move, the other half paid inside the hold. Checks every 700 ns, moves
// of 300 ns.
func TestIndexedLockLanding(t *testing.T) {
	ov := machine.Overheads{LockMigrateNs: 300, LockHandoffNs: 3, LockCheckNs: 700, LockSpinNs: 2800}
	for _, tc := range []struct {
		name string
		a, b *tree.Node
		want float64
	}{
		// a holds 0-100; b asks at 50 and lands at 200 on the free
		// lock, then holds it 200-450 (the other half of the move and
		// its 100 ns), and ends at 2450, as with the whole flight.
		{"unlocked in flight", tree.Task("a", tree.L(1, 100), tree.U(1000)),
			tree.Task("b", tree.U(50), tree.IndexedL(1, 100), tree.U(2000)), 2450},
		// a holds 0-100 and asks again at 250, on its own core; b asks
		// at 120 and lands at 270, with a holding the lock 250-350. b
		// spins, takes the lock at its first check, 820, paying the
		// move: 1120-1220, and ends at 1720 (with the whole flight, b
		// lands at 420 on the free lock and the section ends at 1350).
		{"taken as it lands", tree.Task("a", tree.L(1, 100), tree.U(150), tree.L(1, 100), tree.U(1000)),
			tree.Task("b", tree.U(120), tree.IndexedL(1, 100), tree.U(500)), 1720},
	} {
		r := emulateSec(t, tree.Sec("s", tc.a, tc.b), 2, "static", ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestAsleep checks the share of lock waiters counted asleep against
// their wait, with a ramp after the spin window and without one (a
// calibration that never saw half its waiters park fits none): 0 within
// the window, 1 past it, never NaN.
func TestAsleep(t *testing.T) {
	for _, tc := range []struct {
		spin, ramp, waited, want float64
	}{
		{1000, 200, 0, 0},
		{1000, 200, 999, 0},
		{1000, 200, 1100, 0.5},
		{1000, 200, 1200, 1},
		{1000, 200, 5000, 1},
		{1000, 0, 0, 0},
		{1000, 0, 999, 0},
		{1000, 0, 1000, 1},
		{1000, -50, 999, 0},
		{1000, -50, 1000, 1},
	} {
		s := &state{ov: machine.Overheads{LockSpinNs: tc.spin, LockSpinRampNs: tc.ramp}}
		if got := s.asleep(tc.waited); got != tc.want {
			t.Errorf("spin %v ramp %v, waited %v: asleep %v, want %v", tc.spin, tc.ramp, tc.waited, got, tc.want)
		}
	}
}

// TestLockSwitchNormalMode checks, worked out by hand, that a goroutine
// that parked at once for a lock and is woken by a normal-mode Unlock
// does not own the lock while it is switched in: others take it
// meanwhile (sync.Mutex: a woken waiter competes with new arrivals).
// Four spawned tasks on 2 cores, spin window 5 µs with no ramp, checks
// every 1250 ns, switch 100 ns, a hand-off latency (normal mode) that
// nobody here waits long enough to pay:
//
//	core 1: a holds 0-1000. Core 0: b asks at 0 and parks at once (c
//	and d wait for a core), c likewise, d computes 0-1050.
//	1000: a's Unlock readies b, which core 1 switches in, 1000-1100.
//	1050: d finds the lock free and takes it, 1050-1350.
//	1100: b finds it taken, nobody waits for a core: b spins from
//	1100 and sees the Unlock at its check, 2350: b 2350-3350.
//	3350: b's Unlock readies c: switched in 3350-3450, c 3450-4450.
//
// Were the lock b's while it was switched in (a direct
// hand-off), d would wait until 2300 and the loop end at 3700.
func TestLockSwitchNormalMode(t *testing.T) {
	sec := tree.Sec("s",
		tree.Task("a", tree.L(1, 1000)), tree.Task("b", tree.L(1, 1000)), tree.Task("c", tree.L(1, 1000)),
		tree.Task("d", tree.U(1050), tree.L(1, 300)))
	ov := machine.Overheads{LockSpinNs: 5000, LockSwitchNs: 100, LockHandoffNs: 1}
	r := emulateSec(t, sec, 2, "spawn", ov, 0)
	if r.parallel != 4450 {
		t.Errorf("time %v, want 4450", r.parallel)
	}
}

// TestLockLocalCost checks the lock's own cost: on one thread
// LockLocalNs (nothing else touches the lock's line), on more LockNs for
// every Lock; without LockLocalNs, LockNs everywhere.
func TestLockLocalCost(t *testing.T) {
	task := func(u int64) *tree.Node { return tree.Task("t", tree.U(u), tree.L(1, 10)) }
	// Static on 2 threads: tasks 0 and 1 on the first, 2 and 3 on the
	// second.
	sec := tree.Sec("s", task(100), task(100), task(500), task(500))
	for _, tc := range []struct {
		name    string
		ov      machine.Overheads
		threads int
		want    float64
	}{
		// 2 × (100 + 2 + 10) + 2 × (500 + 2 + 10).
		{"one core", machine.Overheads{LockNs: 12, LockLocalNs: 2}, 1, 1248},
		{"one core, not measured", machine.Overheads{LockNs: 12}, 1, 1288},
		// The first core: 100+12+10, then 100+12+10 by 244. The
		// second: 500+12+10 = 522, then 1022+12+10 = 1044.
		{"two cores", machine.Overheads{LockNs: 12, LockLocalNs: 2}, 2, 1044},
		{"two cores, not measured", machine.Overheads{LockNs: 12}, 2, 1044},
	} {
		r := emulateSec(t, sec, tc.threads, "static", tc.ov, 0)
		if r.parallel != tc.want {
			t.Errorf("%s: %v ns, want %v", tc.name, r.parallel, tc.want)
		}
	}
}

// TestMixedIndexedLock checks, worked out by hand as
// TestIndexedLockLanding, that each hold of a lock flies as its own L
// node is: a plain critical section of a lock whose other critical
// sections are indexed flies the whole move. a holds the lock (indexed)
// 0-100 and again, on its own core, 250-350; b asks at 120 for a plain
// hold and lands at 420 on the free lock: it holds 420-520 and ends at
// 1020, a at 1350. (Charged as indexed, b would land at 270 with a
// holding the lock, spin, and end at 1720, as in TestIndexedLockLanding's
// second case.)
func TestMixedIndexedLock(t *testing.T) {
	ov := machine.Overheads{LockMigrateNs: 300, LockHandoffNs: 3, LockCheckNs: 700, LockSpinNs: 2800}
	a := tree.Task("a", tree.IndexedL(1, 100), tree.U(150), tree.IndexedL(1, 100), tree.U(1000))
	b := tree.Task("b", tree.U(120), tree.L(1, 100), tree.U(500))
	r := emulateSec(t, tree.Sec("s", a, b), 2, "static", ov, 0)
	if r.parallel != 1350 {
		t.Errorf("%v ns, want 1350", r.parallel)
	}
}
