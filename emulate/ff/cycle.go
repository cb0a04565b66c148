package ff

import (
	"cmp"
	"slices"
)

// Spawn cycles: a spawner that spawns a run of identical pure tasks
// faster than a core wakes, but slower than the woken cores run them,
// drives the machine in cycles. Every core is idle and nothing is queued
// when the spawner spawns; the spawn wakes a core, the next ones wake
// more while the first wake-up is in flight, the woken cores drain what
// queued meanwhile and go idle one by one, and the next spawn starts the
// cycle again. Once every core is idle, nothing but the spawner's clock
// and how many tasks it has left says what happens next: apart from
// which core is which, every cycle that starts that way is the one
// before, shifted in time, whichever run of the same task the spawner
// is in. spawnCycle notes the state at each such start (a checkpoint)
// and, once two cycles within runs of the same task have moved every
// counter by the same amounts, adds as many more cycles at once as the
// run has tasks for, leaving the last one to the event loop. The times
// are on the grid, so each of those sums is exact: the result is the
// step-by-step emulation's, with the cores' names permuted, which no
// result depends on.

// spawnCheck is the state at a checkpoint (see spawnCycle): the spawner
// it belongs to, and every quantity a cycle moves. The spawns a cycle
// makes are rep's step: two checkpoints compared are of one run, in
// which the team's and the emulation's spawn counts (tm.spawned,
// s.nSpawn) move with the run's position, one for one.
type spawnCheck struct {
	g       *gor
	gen     uint32
	run     *taskRun
	now     float64
	busy    float64
	rep     int64
	wakes   int
	pending int
	nzAcc   int64
	nzHits  int
	hoU     float64
	woke    bool
	late    bool
}

// cycleDelta is what one cycle moved, between two checkpoints.
type cycleDelta struct {
	now, busy float64
	rep       int64
	wakes     int
	changed   bool // something a cycle must not move moved
}

// delta returns what moved from checkpoint a to b.
func (b *spawnCheck) delta(a *spawnCheck) cycleDelta {
	return cycleDelta{
		now: b.now - a.now, busy: b.busy - a.busy,
		rep: b.rep - a.rep, wakes: b.wakes - a.wakes,
		changed: b.pending != a.pending || b.nzAcc != a.nzAcc || b.nzHits != a.nzHits || b.hoU != a.hoU ||
			b.woke != a.woke || b.late != a.late,
	}
}

// checkpoint returns the state at the current spawn of spawner g (frame
// f, in run r, of team tm).
func (s *state) checkpoint(g *gor, f *frame, r *taskRun, tm *team) spawnCheck {
	return spawnCheck{g: g, gen: g.gen, run: r, now: s.now, busy: s.busy, rep: f.rep,
		wakes: s.wakes, pending: tm.pending,
		nzAcc: s.nzAcc, nzHits: s.nzHits, hoU: s.hoU, woke: s.woke, late: s.late}
}

// addCycles adds, at the current spawn of spawner g (frame f, of team
// tm, in a run of count tasks), as many more cycles d as the run has
// spawns for, the spawn after the last of them included (the state a
// cycle ends in is the one at that spawn), and leaves the rest to the
// event loop: the clocks, every pending event and every counter move by
// a whole number of cycles (on the grid, so exactly). It reports
// whether it added any.
func (s *state) addCycles(g *gor, f *frame, tm *team, count int64, d cycleDelta) bool {
	if d.changed || d.rep <= 0 || !(d.now > 0) || !isInt(d.now) || !isInt(d.busy) {
		return false
	}
	k := (count - f.rep - 1) / d.rep
	if k < 1 || s.now+float64(k)*d.now >= maxExact || s.busy+float64(k)*d.busy >= maxExact {
		return false
	}
	s.shift(g, tm, float64(k)*d.now, k*d.rep, float64(k)*d.busy, int(k)*d.wakes)
	f.rep += k * d.rep
	return true
}

// shift moves spawner g of team tm, the clocks and every pending event
// (but g's own) on by by ns, for spawns spawns made meanwhile whose
// goroutines kept the cores busy for busy ns and woke cores wakes
// times: the state at g's current spawn, as it is, becomes the state at
// its spawn spawns later. The caller moves g's position in the section.
func (s *state) shift(g *gor, tm *team, by float64, spawns int64, busy float64, wakes int) {
	s.cycleSpawns += spawns
	for i := 1; i < len(s.h); i++ {
		ev := &s.h[i]
		ev.t += by
		if ev.kind == evG {
			// A goroutine of a task running (a spawnPeriod state):
			// it started, and will end, that much later.
			o := s.gs[ev.id]
			o.clock += by
			s.coreSince[o.core] += by
		}
	}
	s.now += by
	g.clock = s.now
	s.busy += busy
	// The last task ended that much later too.
	s.end += by
	tm.spawned += int(spawns)
	s.nSpawn += int(spawns)
	s.wakes += wakes
}

// spawnCycle runs at each spawn of spawner g (frame f, in run r of a task
// child counted count times, of team tm), when its clock has reached
// the current time and before the spawn: at a checkpoint (every other
// core idle, nothing queued or pending, no other goroutine alive) it
// notes the state, and after two alike cycles, each within one run, it
// adds whole cycles in one step (see above). cycles counts the cycles
// compared so far, plus one. It reports whether g's spawn is now of
// another task child of f's section (spawnSkip moved it there).
func (s *state) spawnCycle(g *gor, f *frame, r *taskRun, count int64, tm *team) bool {
	if s.stepwise || s.spans != nil || s.spawnLimit > 0 || r == nil || !r.pure ||
		!s.gridBurden || s.aheadUntil > s.now || g.clock != s.now || !isInt(s.now) {
		return false
	}
	if s.onlyPeriods || len(s.gs)-len(s.free) != 1 || s.ready.len() != 0 || s.waking != 0 || len(s.idle) != s.t-1 || len(s.h) != 1 {
		s.spawnPeriod(g, f, r, count, tm)
		if !s.exactSpawn && s.periodRun == r {
			return s.spawnSkip(g, f, r, count, tm)
		}
		return false
	}
	cur := s.checkpoint(g, f, r, tm)
	prev := &s.cycleAt
	if s.cycles == 0 || prev.g != g || prev.gen != g.gen || prev.run.node != r.node {
		s.cycleAt, s.cycles = cur, 1
		return false
	}
	if prev.run != r {
		// The cycle since prev crossed into another run: a new
		// checkpoint, but no cycle to compare.
		s.cycleAt = cur
		return false
	}
	d := cur.delta(prev)
	if s.cycles >= 2 && d == s.cycleBy && s.addCycles(g, f, tm, count, d) {
		cur = s.checkpoint(g, f, r, tm)
	}
	s.cycleAt, s.cycleBy = cur, d
	s.cycles++
	return false
}

// Periods: where the cores never all go idle (16 threads with cores in
// runnext back-offs that overlap the cycles, or spawned goroutines that
// take a core longer than a spawn takes the spawner), the machine still
// comes back to the same state at a spawn, relative to the current
// time: the same tasks queued, the same wake-ups and back-offs in
// flight and the same tasks running, each as far from its end.
// spawnPeriod looks for that by Brent's cycle detection over the states
// at the spawns of one run (a state noted at each power of two of
// spawns, compared with each later one), within a budget of spawns per
// run, and on a repeat adds as many periods at once as the run has
// tasks for: every pending wake-up, every running task and the clocks
// move by the same whole number of periods, on the grid. Which core
// runs which task does not matter, since the tasks are alike, and the
// goroutines that started and ended within the periods added are never
// made.

// periodEv is a pending wake-up of a period state: when it comes,
// relative to the state's time, and its kind (seq orders two at once as
// the event loop does, and is cleared once they are sorted).
type periodEv struct {
	dt   float64
	seq  uint64
	kind evKind
	// starting: a goroutine's event at which it starts its task (and
	// ends it a task's length later), rather than its end.
	starting bool
	// chain: a core's wake-up that goes on waking the next (see
	// state.wakeIdle).
	chain bool
}

// periodState is spawnPeriod's state at a spawn.
type periodState struct {
	ck     spawnCheck
	evs    []periodEv
	queued int
	pinned bool
	waking int
	idle   int
}

// periodBudget is how many spawns of a run spawnPeriod looks for a
// repeat in before it gives up on the run.
const periodBudget = 1 << 16

// periodMinLeft is how many tasks a run must have left for spawnPeriod
// to look for a period in it: in a shorter rest, a period found would
// leave little or nothing to add.
const periodMinLeft = 64

// periodQualifies reports whether the state at the current spawn of a
// run r by spawner g of team tm qualifies for spawnPeriod: nothing but
// tasks of r waits, and nothing but wake-ups of cores and goroutines of
// tm's pure tasks, each about to start a task of r or to end its task,
// pends, and no other goroutine is alive.
func (s *state) periodQualifies(g *gor, r *taskRun, tm *team) bool {
	running := 0
	for i := 1; i < len(s.h); i++ {
		ev := &s.h[i]
		switch ev.kind {
		case evWake, evSteal:
		case evG:
			o := s.gs[ev.id]
			_, starting, ok := s.pureSpawnShape(o, ev.t)
			if !ok || o == g || o.team != tm || !isInt(ev.t) || starting && !alike(o.frames[0].run, r) {
				return false
			}
			running++
		default:
			return false
		}
	}
	if len(s.gs)-len(s.free) != 1+running {
		return false
	}
	q := &s.ready
	for i := 0; i < q.entries.len(); i++ {
		if e := q.at(i); e.g != nil || !alike(e.run, r) {
			return false
		}
	}
	return true
}

// alike reports whether goroutines of task runs a and b are the same to
// the cores: the same run, or runs of pure tasks of one length (a
// recorded loop's runs of one task, split by a struck task between).
func alike(a, b *taskRun) bool {
	return a == b || a != nil && b != nil && a.pure && b.pure && a.work == b.work
}

// periodNote fills ps with the state at the current spawn of g, which
// qualifies (periodQualifies), reusing its event buffer.
func (s *state) periodNote(ps *periodState, g *gor, f *frame, r *taskRun, tm *team) {
	evs := ps.evs[:0]
	for i := 1; i < len(s.h); i++ {
		ev := &s.h[i]
		pe := periodEv{dt: ev.t - s.now, seq: ev.seq, kind: ev.kind}
		if ev.kind == evG {
			pe.starting = len(s.gs[ev.id].frames) > 0
		} else {
			pe.chain = (ev.kind == evWake || ev.kind == evSteal) && ev.id == s.chainCore
		}
		evs = append(evs, pe)
	}
	// In the order the event loop takes them.
	slices.SortFunc(evs, func(a, b periodEv) int {
		if c := cmp.Compare(a.dt, b.dt); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := range evs {
		evs[i].seq = 0
	}
	q := &s.ready
	ps.evs = evs
	ps.queued, ps.waking, ps.idle = q.len(), s.waking, len(s.idle)
	ps.pinned = q.entries.len() > 0 && s.pinned(q.at(q.entries.len()-1))
	ps.ck = s.checkpoint(g, f, r, tm)
}

// samePeriodState reports whether a and b are the same state at
// different times.
func samePeriodState(a, b *periodState) bool {
	return a.queued == b.queued && a.pinned == b.pinned && a.waking == b.waking && a.idle == b.idle &&
		!b.ck.delta(&a.ck).changed && slices.Equal(a.evs, b.evs)
}

// spawnPeriod runs where spawnCycle finds no checkpoint (see above),
// with spawnCycle's conditions checked.
func (s *state) spawnPeriod(g *gor, f *frame, r *taskRun, count int64, tm *team) {
	saved := &s.periodAt
	if s.periodRun != r || saved.ck.g != g || saved.ck.gen != g.gen {
		s.periodRun, s.periodPower, s.periodLam, s.periodTries = r, 1, 0, 0
		saved.ck.g = nil
	}
	if s.periodTries >= periodBudget || count-f.rep < periodMinLeft {
		return
	}
	s.periodTries++
	cur := &s.periodCur
	if saved.ck.g == nil {
		if s.periodQualifies(g, r, tm) {
			s.periodNote(saved, g, f, r, tm)
		}
		return
	}
	s.periodLam++
	// Only a state that agrees with the saved one in its counts is
	// worth looking at further, and sorting its events for.
	noted := false
	if s.ready.len() == saved.queued && s.waking == saved.waking && len(s.idle) == saved.idle && len(s.h)-1 == len(saved.evs) &&
		s.periodQualifies(g, r, tm) {
		s.periodNote(cur, g, f, r, tm)
		noted = true
		if samePeriodState(saved, cur) {
			s.addCycles(g, f, tm, count, cur.ck.delta(&saved.ck))
			// Start over from here (the run's rest is shorter than a
			// period, or the jump is done).
			s.periodTries = periodBudget
			return
		}
	}
	if s.periodLam == s.periodPower {
		// The state saved next must qualify; where this one does not,
		// the saved one stays for another round.
		if !noted {
			if !s.periodQualifies(g, r, tm) {
				s.periodLam = 0
				return
			}
			s.periodNote(cur, g, f, r, tm)
		}
		*saved, *cur = *cur, *saved
		s.periodPower *= 2
		s.periodLam = 0
	}
}
