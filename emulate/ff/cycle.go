package ff

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
// it belongs to, and every quantity a cycle moves.
type spawnCheck struct {
	g       *gor
	gen     uint32
	run     *taskRun
	now     float64
	busy    float64
	end     float64
	rep     int64
	spawned int
	nSpawn  int
	wakes   int
	pending int
	nzAcc   int64
	nzHits  int
	hoU     float64
	spinU   float64
	woke    bool
	late    bool
}

// cycleDelta is what one cycle moved, between two checkpoints.
type cycleDelta struct {
	now, busy, end  float64
	rep             int64
	spawned, nSpawn int
	wakes           int
	changed         bool // something a cycle must not move moved
}

// delta returns what moved from checkpoint a to b.
func (b *spawnCheck) delta(a *spawnCheck) cycleDelta {
	return cycleDelta{
		now: b.now - a.now, busy: b.busy - a.busy, end: b.end - a.end,
		rep: b.rep - a.rep, spawned: b.spawned - a.spawned, nSpawn: b.nSpawn - a.nSpawn, wakes: b.wakes - a.wakes,
		changed: b.pending != a.pending || b.nzAcc != a.nzAcc || b.nzHits != a.nzHits || b.hoU != a.hoU ||
			b.spinU != a.spinU || b.woke != a.woke || b.late != a.late,
	}
}

// spawnCycle runs at each spawn of spawner g (frame f, in run r of a task
// child counted count times, of team tm), when its clock has reached
// the current time and before the spawn: at a checkpoint (every other
// core idle, nothing queued or pending, no other goroutine alive) it
// notes the state, and after two alike cycles, each within one run, it
// adds whole cycles in one step (see above). cycles counts the cycles
// compared so far, plus one.
func (s *state) spawnCycle(g *gor, f *frame, r *taskRun, count int64, tm *team) {
	if s.stepwise || s.spans != nil || s.spawnLimit > 0 || r == nil || !r.pure || !s.gridBurden ||
		s.ready.len() != 0 || s.waking != 0 || len(s.idle) != s.t-1 || len(s.h) != 1 ||
		len(s.gs)-len(s.free) != 1 || s.aheadUntil > s.now || g.clock != s.now || !isInt(s.now) {
		return
	}
	cur := spawnCheck{g: g, gen: g.gen, run: r, now: s.now, busy: s.busy, end: s.end, rep: f.rep,
		spawned: tm.spawned, nSpawn: s.nSpawn, wakes: s.wakes, pending: tm.pending,
		nzAcc: s.nzAcc, nzHits: s.nzHits, hoU: s.hoU, spinU: s.spinU, woke: s.woke, late: s.late}
	prev := &s.cycleAt
	if s.cycles == 0 || prev.g != g || prev.gen != g.gen || prev.run.node != r.node {
		s.cycleAt, s.cycles = cur, 1
		return
	}
	if prev.run != r {
		// The cycle since prev crossed into another run: a new
		// checkpoint, but no cycle to compare.
		s.cycleAt = cur
		return
	}
	d := cur.delta(prev)
	if s.cycles >= 2 && d == s.cycleBy && !d.changed && d.rep > 0 && d.now > 0 && isInt(d.now) && isInt(d.busy) {
		// k more cycles leave at least one whole cycle, and the spawn
		// after it, to the event loop.
		k := (count - cur.rep - d.rep - 1) / d.rep
		if k >= 1 && cur.now+float64(k)*d.now < maxExact && cur.busy+float64(k)*d.busy < maxExact {
			s.cycleSpawns += k * d.rep
			kf := float64(k)
			s.now += kf * d.now
			g.clock = s.now
			s.busy += kf * d.busy
			s.end += kf * d.end
			f.rep += k * d.rep
			tm.spawned += int(k) * d.spawned
			s.nSpawn += int(k) * d.nSpawn
			s.wakes += int(k) * d.wakes
			cur.now, cur.busy, cur.end, cur.rep = s.now, s.busy, s.end, f.rep
			cur.spawned, cur.nSpawn, cur.wakes = tm.spawned, s.nSpawn, s.wakes
		}
	}
	s.cycleAt, s.cycleBy = cur, d
	s.cycles++
}
