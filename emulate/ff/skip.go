package ff

import "github.com/parallel-prophet/prophet/tree"

// Spawn skips: where no period repeats (the wake-ups of idle cores at 4
// to 16 threads make the state at a spawn come back within 128 ns in 4
// of 40 runs of a recorded 10^6-task loop, over their first 4,000
// spawns), a spawner that outruns nothing still sets the pace. Over a
// window of at least skipWindow spawns of one run, between two states
// that qualify as spawnPeriod's do (nothing alive but the spawner and
// the run's pure tasks), its clock moved by its spawns' cost alone, and
// no more goroutines wait or run at the window's end than at its start.
// Its clock then moves the same way whatever the cores do, and with it
// the section's end, but for its last tasks. spawnSkip adds as many such
// windows at once as the run has spawns for, with the state of the cores
// as it is now moved by the windows' time, as addCycles does for a
// period. The busy time is exact: the windows skipped are busy for their
// tasks' work (the spawner's own stretch, which goes on, counts its
// spawns). Unlike a period, the state does not come back exactly, so
// this is the one shortcut that is not exact: after a skip, the cores'
// wake-ups are in the phases of the state before it, where the
// step-by-step emulation's would differ. That moves the section's last
// tasks, by at most a wake-up; TestSpawnSkipError bounds it against the
// exact emulation.
//
// A recorded loop's runs are broken: a task struck by an interrupt or
// the collector is recorded longer than its neighbours and splits their
// run in two, every few dozen to few thousand tasks. A skip confined to
// one run leaves each run's first window and last spawns to the event
// loop, most of the work on such a profile. skipAcross carries the skip
// on over the runs that follow, as long as they are runs of a task alike
// (pure, the same length), single pure tasks of other lengths (the
// struck ones) and the section's own U nodes, and it ends where the
// cores, which take each skipped goroutine as the window's pace lets
// them, have caught up with the goroutines skipped: a single struck task
// holds up one core, and the others keep up with the spawner (a queue's
// backlog, counted as Lindley's recursion counts a queue's wait, that
// is back to less than a task when the skip ends). The section's last
// skipWindow spawns stay with the event loop, so the section ends as
// the event loop has it.

// skipWindow is the fewest spawns a window of spawnSkip holds.
const skipWindow = 16

// skipAcrossKids is how many of the section's children skipAcross looks
// at past the current one, or past the last target it found: where the
// cores never catch up (struck tasks that outweigh their slack), a
// window looks that far for a target in vain, instead of walking the
// rest of the section at every window.
const skipAcrossKids = 256

// spawnSkip runs at each spawn where spawnCycle found no checkpoint,
// after spawnPeriod (see above): it opens a window at a state that
// qualifies, and at the first state that qualifies skipWindow spawns or
// more later (up to four windows' worth), skips whole windows where the
// spawner set the pace, or on over the runs that follow (skipAcross).
// It reports whether g's spawn is now of another task child of f's
// section.
func (s *state) spawnSkip(g *gor, f *frame, r *taskRun, count int64, tm *team) bool {
	if s.skipRun != r || s.skipAt.g != g || s.skipAt.gen != g.gen {
		s.skipRun, s.skipN = r, 0
	}
	if s.skipN == 0 {
		// The window starts at a state that qualifies.
		if count-f.rep > skipWindow && s.periodQualifies(g, r, tm) {
			s.skipAt = s.checkpoint(g, f, r, tm)
			s.skipN = 1
		}
		return false
	}
	if s.skipN++; s.skipN <= skipWindow {
		return false
	}
	if s.skipN > 4*skipWindow {
		s.skipN = 0 // no state qualified to end the window: start again
		return false
	}
	if !s.periodQualifies(g, r, tm) {
		return false
	}
	cur := s.checkpoint(g, f, r, tm)
	d := cur.delta(&s.skipAt)
	s.skipN = 0
	// The spawner must have set the pace: its clock moved by its spawns
	// alone, and no more goroutines wait or run than at the window's
	// start.
	if cur.pending > s.skipAt.pending || d.now != float64(d.rep)*s.spawnNs {
		return false
	}
	// What differs from the window before (the running goroutines'
	// phases) is what the skip leaves as it is. The busy time the
	// window accrued is that of the core stretches that ended in it,
	// which may have begun long before; the windows skipped are busy
	// for what their tasks take, exactly (the spawner's own stretch,
	// which goes on, counts its spawns).
	d.changed = false
	d.busy = float64(d.rep) * (s.ov.SpawnRunNs + r.work*s.burden)
	if s.skipAcross(g, f, r, tm, d) {
		return true
	}
	s.addCycles(g, f, tm, count, d)
	return false
}

// skipAcross is spawnSkip's skip on past the end of run r (see above),
// for spawner g at its current spawn in r (paid, not yet made), after a
// window d in which it set the pace. It moves g to a spawn of a later
// run of a task alike, with the state of the cores as it is now moved
// by the time the spawner takes to get there, and reports whether it
// did.
func (s *state) skipAcross(g *gor, f *frame, r *taskRun, tm *team, d cycleDelta) bool {
	ch := s.p.kids(f.node)
	runs := f.info.runs
	if f.info.dense || !r.pure || f.w >= len(runs)-1 {
		return false
	}
	// Each goroutine takes a core for its task and its start; the
	// other cores take one per spawn between them.
	base := r.work*s.burden + s.ov.SpawnRunNs
	keep := float64(s.t-1) * s.spawnNs
	if !(base <= keep) || !isInt(base) {
		return false
	}
	// The state moves on as it is, every goroutine running with it: one
	// that runs a longer task (a struck one) would run it again after
	// the skip, so the skip waits until it is done.
	for i := 1; i < len(s.h); i++ {
		if ev := &s.h[i]; ev.kind == evG && ev.t-s.now > base {
			return false
		}
	}
	// Walking on from the current spawn: m spawns skipped so far, the
	// spawner's clock moved by by, the goroutines' core time busy, and
	// the cores' backlog.
	var (
		m       = runs[f.w].count - f.rep
		by      = float64(m) * s.spawnNs
		busy    = float64(m) * base
		backlog float64
	)
	// The best target so far: child i, run w, spawn rep, with the sums
	// up to it.
	type target struct {
		i, w     int
		rep, m   int64
		by, busy float64
	}
	var best target
	w, seen := f.w+1, f.i
walk:
	for i := f.i + 1; i < len(ch) && i <= seen+skipAcrossKids && w < len(runs); i++ {
		c := &ch[i]
		switch c.kind() {
		case tree.KindU:
			if c.setup() {
				break walk
			}
			u := float64(c.len()) * float64(c.count()) * s.burden
			by += u
			backlog = max(backlog-float64(s.t-1)*u, 0)
			continue
		case tree.KindTask:
		default:
			break walk
		}
		run := &runs[w]
		w++
		if !run.pure {
			break walk
		}
		cost := run.work*s.burden + s.ov.SpawnRunNs
		if !alike(run, r) {
			// A task of another length: one, struck, among the alike.
			if run.count != 1 || !isInt(cost) {
				break walk
			}
			m++
			by += s.spawnNs
			busy += cost
			backlog = max(backlog+cost-keep, 0)
			continue
		}
		// A run alike: the target may lie in it, its last skipWindow
		// spawns left to the event loop.
		lead := max(run.count-skipWindow, 0)
		at := backlog - float64(lead)*(keep-base)
		if at <= base {
			best = target{i: i, w: w - 1, rep: lead, m: m + lead, by: by + float64(lead)*s.spawnNs, busy: busy + float64(lead)*base}
			seen = i
		}
		m += run.count
		by += float64(run.count) * s.spawnNs
		busy += float64(run.count) * base
		backlog = max(at-float64(run.count-lead)*(keep-base), 0)
	}
	if best.m == 0 || !isInt(best.by) || !isInt(best.busy) || s.now+best.by >= maxExact || s.busy+best.busy >= maxExact {
		return false
	}
	wakes := 0
	if d.rep > 0 {
		wakes = int(int64(d.wakes) * best.m / d.rep)
	}
	s.shift(g, tm, best.by, best.m, best.busy, wakes)
	f.i, f.w, f.rep = best.i, best.w, best.rep
	s.skipN = 0
	return true
}
