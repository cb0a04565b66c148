package ff

import (
	"cmp"
	"math"
	"slices"
)

// Lockstep: the workers of a team running runs of identical U-L-U tasks
// on one lock interleave task by task, so the event loop would go through
// the heap once per task. When every pending event is such a worker's
// lock request (or comes later than the window at hand), the requests
// of one round, r_1 < r_2 < ... < r_k, are at least the lock's hold time
// h apart (cyclically: r_1 + P - r_k >= h too, P being the period of one
// task), and the lock is free at r_1, then no request ever waits: round j
// is round 0 shifted by j·P, and every worker just runs its tasks back to
// back. lockstep then advances all of them by n rounds in one step,
// exactly as the event loop would (times on the 1/gridScale grid, so the
// closed form r_i + j·P gives the same float64 values as the step-by-step
// sums), with fresh sequence numbers in the order the last round would
// have given them.
//
// With dynamic:1 each task is one chunk: a worker takes the next chunk
// (charging ChunkNs) after each task, at a time that does not depend on
// the order of the others' fetches, and since the tasks handed out all
// come from one run of identical tasks, which worker gets which one does
// not matter; the team's counter moves on by k·n.

// stepper is one worker taking part in a lockstep.
type stepper struct {
	t   float64
	seq uint64
	g   *gor
	ev  int // index of its event in the heap
}

// stepShape reports whether g, whose event is at t, is a worker waiting
// at the L of a task of a oneL run, and returns its task and worker
// frames.
func stepShape(g *gor, t float64) (top, wf *frame, ok bool) {
	n := len(g.frames)
	if n < 2 || g.resume != resNone || g.clock != t {
		return nil, nil, false
	}
	top, wf = &g.frames[n-1], &g.frames[n-2]
	r := top.run
	if top.kind != fTask || r == nil || !r.oneL || top.i != r.iL || top.rep != 0 || top.walked ||
		wf.kind != fWorker || wf.info.dense {
		return nil, nil, false
	}
	return top, wf, true
}

// sameShape reports whether runs a and b take the same time and lock.
func sameShape(a, b *taskRun) bool {
	return a.oneL && b.oneL && a.preL == b.preL && a.lenL == b.lenL && a.postL == b.postL && a.lockID == b.lockID && a.indexedL == b.indexedL
}

// ahead returns the run of the next task worker frame wf will run after
// its current one and how many of its next tasks, in its own order, are
// tasks of that run (0 if it knows of none without taking a dynamic or
// guided chunk).
func (s *state) ahead(wf *frame) (*taskRun, int64) {
	info := wf.info
	if wf.left > 0 {
		r := &info.runs[wf.cur.run]
		n := min(wf.left, r.count-wf.cur.off)
		if n < wf.left || s.rule.ownedChunk() == 0 {
			return r, n
		}
		return r, n + s.chunksIn(wf, r)
	}
	if s.rule.ownedChunk() == 0 || wf.nextLo < 0 || wf.nextLo >= info.n {
		return nil, 0
	}
	r := &info.runs[info.seekFrom(wf.cur, wf.nextLo).run]
	return r, s.chunksIn(wf, r)
}

// chunksIn counts the tasks of the static:C chunks of wf from wf.nextLo on
// that lie wholly in run r, up to the first that does not.
func (s *state) chunksIn(wf *frame, r *taskRun) int64 {
	c := s.rule.ownedChunk()
	stride := int64(wf.team.k) * c
	lo, end := wf.nextLo, r.start+r.count
	if lo < r.start || lo+c > end {
		return 0
	}
	return ((end-lo-c)/stride + 1) * c
}

// consume moves worker frame wf on by n tasks (n <= what ahead counted):
// the n-th is the one it is now in.
func (s *state) consume(wf *frame, n int64) {
	if n <= wf.left {
		wf.left -= n
		wf.info.advance(&wf.cur, n)
		return
	}
	// static:C: on into the next chunks.
	c := s.rule.ownedChunk()
	stride := int64(wf.team.k) * c
	m := n - wf.left
	q, p := (m-1)/c, (m-1)%c
	lo := wf.nextLo + q*stride
	wf.left = min(c, wf.info.n-lo) - (p + 1)
	if wf.left > 0 {
		wf.cur = wf.info.seekFrom(wf.cur, lo+p+1)
	}
	wf.nextLo = lo + stride
}

// lockstep advances the workers in lockstep by as many rounds as it can
// (see above) and reports whether it did.
func (s *state) lockstep() bool {
	if s.spans != nil || s.stepwise || !s.gridBurden || s.h[0].kind != evG || !isInt(s.h[0].t) {
		return false
	}
	g0 := s.gs[s.h[0].id]
	top0, wf0, ok := stepShape(g0, s.h[0].t)
	if !ok {
		return false
	}
	shape, tm := top0.run, wf0.team
	dyn := false
	if c := s.fetchC; c > 0 {
		// Chunks fetched one task at a time interleave with the
		// tasks in rounds; larger ones do not.
		if c != 1 {
			return false
		}
		dyn = true
	}
	lockNs, chunkNs := s.lockNs, 0.0
	if dyn {
		// Every fetch of the rounds follows another member's, from
		// another core (checked below for the first).
		chunkNs = s.fetchNs + s.fetchMigNs
	}
	lr := s.scaled(shape.lenL)
	hold := lockNs + s.held(lr)
	period := hold + s.scaled(shape.postL) + s.scaled(shape.preL) + chunkNs
	if !isInt(lockNs) || !isInt(chunkNs) || !isInt(period) || !(period > 0) {
		return false
	}
	if dyn && period-chunkNs < s.chunkCurve.EndNs() {
		// A member asks again a task after its last fetch, or later:
		// the rounds take every move at its whole cost (fetchCosts).
		return false
	}
	if dyn && (tm.next >= tm.info.n || !sameShape(&tm.info.runs[tm.cur.run], shape)) {
		// The counter is past the run (checked before the look at
		// the members, which costs more).
		return false
	}
	// The members, the foreign events' earliest time, and how many
	// rounds every member has tasks for.
	members := s.steppers[:0]
	foreign := math.Inf(1)
	nmax := int64(math.MaxInt64)
	busy := false // with dynamic, a member still has tasks in its chunk
	for i := range s.h {
		ev := &s.h[i]
		if ev.kind == evG {
			g := s.gs[ev.id]
			if top, wf, ok := stepShape(g, ev.t); ok && wf.team == tm && sameShape(top.run, shape) && isInt(ev.t) {
				if !dyn {
					r, n := s.ahead(wf)
					if r == nil || !sameShape(r, shape) {
						n = 0
					}
					nmax = min(nmax, n)
				} else if wf.left != 0 {
					busy = true
				}
				members = append(members, stepper{t: ev.t, seq: ev.seq, g: g, ev: i})
				continue
			}
		}
		foreign = min(foreign, ev.t)
	}
	s.steppers = members
	k := int64(len(members))
	if k < 2 || nmax < 2 {
		return false
	}
	if dyn {
		if busy {
			return false
		}
		r := &tm.info.runs[tm.cur.run]
		nmax = (r.count - tm.cur.off) / k
	}
	nmax = min(nmax, s.quietHolds(lr)/k)
	if mig := s.ov.LockMigrateNs; mig > 0 {
		// Every Lock comes from another core (see roundOrder).
		hold += mig
		period += mig
		if !isInt(mig) || !isInt(period) {
			return false
		}
	}
	first, last, ok := s.roundOrder(members, period, hold, shape.lockID)
	if !ok || dyn && s.fetchMigNs > 0 && !tm.migrates(members[0].g.core) {
		return false
	}
	// The last event of round n-1 must come before every foreign one:
	// the last request, or with dynamic the last chunk fetch after it.
	tail := 0.0
	if dyn {
		tail = hold + s.scaled(shape.postL)
		// Each fetch comes tail after its request, so the fetches are
		// as far apart as the requests, at least hold: none waits for
		// the counter if hold covers the counter's move and the first
		// finds it free.
		if hold < s.serveNs || tm.counterFree > first+tail {
			return false
		}
	}
	if lk := s.lock(shape.lockID); !dyn && s.flies(lk, members[0].g) {
		// Each Lock is in flight for a move (half of one for an
		// indexed critical section, which pays the rest in the hold)
		// before it takes the lock, which stays free meanwhile (flies):
		// the last one must land before every foreign event.
		tail = s.flightNs(shape.indexedL)
	}
	if last+float64(nmax)*period >= maxExact {
		return false
	}
	n := roundsBefore(nmax, last, period, tail, foreign)
	if n < 2 {
		return false
	}
	// Apply: every member ends at its request n rounds on, in a task of
	// the run its worker has reached.
	for _, m := range members {
		g := m.g
		top, wf := &g.frames[len(g.frames)-1], &g.frames[len(g.frames)-2]
		g.clock = m.t + float64(n)*period
		var r *taskRun
		if dyn {
			r = &tm.info.runs[tm.cur.run]
		} else {
			r, _ = s.ahead(wf)
			s.consume(wf, n)
		}
		top.node, top.run, top.i, top.rep = r.node, r, r.iL, 0
	}
	s.passHolds(lr, n*k)
	end := s.finishRounds(members, n, last, period, hold, tail, shape.lockID)
	if dyn {
		tm.next += n * k
		tm.info.advance(&tm.cur, n*k)
		s.nChunk += int(n * k)
		tm.fetchedOn = int32(members[k-1].g.core) + 1
		tm.counterFree = end + s.serveNs
	}
	return true
}

// spawnShape reports whether g, whose event is at t, is a spawned
// goroutine of a task of a oneL run, waiting at its L or about to start
// it, and returns the time of its lock request.
func (s *state) spawnShape(g *gor, t float64) (*frame, float64, bool) {
	if len(g.frames) != 1 || g.resume != resNone || g.clock != t {
		return nil, 0, false
	}
	top := &g.frames[0]
	r := top.run
	if top.kind != fTask || r == nil || !r.oneL || top.rep != 0 || top.walked {
		return nil, 0, false
	}
	switch top.i {
	case r.iL:
		return top, t, true
	case 0:
		return top, t + s.scaled(r.preL), true
	}
	return nil, 0, false
}

// lockstepSpawn is lockstep for spawn: the cores run spawned goroutines
// of a run of identical tasks, each core taking the next from the ready
// queue when its goroutine ends. With the conditions of lockstep (lock
// requests a hold apart in every round, nothing else pending before the
// window's end) and the ready queue starting with k·n fresh goroutines
// of tasks of the same shape, every core runs n more of them back to
// back; which core gets which does not matter, since they are alike.
// The cores keep their goroutines (the queued ones that end are freed in
// their place). It works for one core as well.
func (s *state) lockstepSpawn() bool {
	if s.spans != nil || s.stepwise || !s.gridBurden || s.h[0].kind != evG || !isInt(s.h[0].t) {
		return false
	}
	g0 := s.gs[s.h[0].id]
	top0, _, ok := s.spawnShape(g0, s.h[0].t)
	if !ok || g0.team == nil {
		return false
	}
	shape, tm := top0.run, g0.team
	lockNs := s.lockNs
	lr := s.scaled(shape.lenL)
	hold := lockNs + s.held(lr)
	tail := hold + s.scaled(shape.postL)
	// Each core starts its next goroutine at the end of its last one
	// (SpawnRunNs; see start).
	period := tail + s.ov.SpawnRunNs + s.scaled(shape.preL)
	if !isInt(lockNs) || !isInt(period) || !(period > 0) {
		return false
	}
	members, foreign, _, _ := s.gather(func(g *gor, ev *event) (float64, uint64, bool) {
		top, req, ok := s.spawnShape(g, ev.t)
		return req, ev.seq, ok && g.team == tm && sameShape(top.run, shape)
	})
	k := int64(len(members))
	if k == 0 || s.ready.len() < len(members) {
		return false
	}
	if mig := s.ov.LockMigrateNs; mig > 0 && k >= 2 {
		// Every Lock comes from another core (see roundOrder).
		hold += mig
		tail += mig
		period += mig
		if !isInt(mig) || !isInt(period) {
			return false
		}
	}
	_, last, ok := s.roundOrder(members, period, hold, shape.lockID)
	if !ok {
		return false
	}
	// Rounds before the first foreign event, then as many as the ready
	// queue has goroutines for.
	n := roundsBefore(min(int64(s.ready.len()), s.quietHolds(lr))/k, last, period, tail, foreign)
	var queued int64
	for i := 0; i < s.ready.entries.len() && queued < n*k; i++ {
		e := s.ready.at(i)
		if ng := e.g; ng != nil {
			// A queued goroutine that is not fresh starts without
			// SpawnRunNs.
			if len(ng.frames) != 1 || ng.team != tm || ng.resume != resNone || s.ov.SpawnRunNs != 0 {
				break
			}
			f := &ng.frames[0]
			if f.kind != fTask || f.i != 0 || f.rep != 0 || f.run == nil || !sameShape(f.run, shape) {
				break
			}
		} else if e.team != tm || e.run == nil || !sameShape(e.run, shape) {
			break
		}
		queued += e.count()
	}
	n = min(n, queued/k)
	if n < 1 || k == 1 && n < 2 || int64(tm.pending)-k*n < 1 || last+float64(n)*period >= maxExact {
		return false
	}
	// Busy time: each core ran its goroutines from their start to the
	// last end, where its last goroutine started.
	last1 := top0.run
	for _, m := range members {
		g := m.g
		started := m.t + float64(n-1)*period + tail
		s.busy += started - s.coreSince[g.core]
		s.coreSince[g.core] = started
		g.clock = m.t + float64(n)*period
	}
	for left := n * k; left > 0; {
		e := s.ready.at(0)
		if ng := e.g; ng != nil {
			last1 = ng.frames[0].run
			s.ready.dropFront(1)
			s.freeG(ng)
			left--
			continue
		}
		last1 = e.run
		if b := e.n; b > left {
			e.n -= left
			s.ready.total -= int(left)
			break
		} else {
			s.ready.dropFront(b)
			left -= b
		}
	}
	for _, m := range members {
		top := &m.g.frames[0]
		top.node, top.run, top.i = last1.node, last1, last1.iL
	}
	tm.pending -= int(n * k)
	s.passHolds(lr, n*k)
	s.end = max(s.end, s.finishRounds(members, n, last, period, hold, tail, shape.lockID))
	return true
}

// Pure spawned rounds: cores running spawned goroutines of tasks of U
// nodes only (pure), each taking the next goroutine from the ready queue
// when its own ends, interact only through the queue. When the queue
// starts with k·n fresh goroutines of tasks that all take L, the k cores
// end their goroutines at times E_1 ≤ ... ≤ E_k less than L apart, and
// nothing else is pending before the last of those ends n−1 rounds on,
// core i ends goroutines at E_i + j·L for j < n, each time taking the
// next one (ends at the same time in the same order every round):
// lockstepSpawnPure advances them all by n rounds in one step, as the
// event loop would (times on the grid, as in lockstep). Which core runs
// which goroutine does not matter, since they are alike.

// pureSpawnShape reports whether g, whose event is at t, is a spawned
// goroutine of a pure task that is about to start it or has done it, and
// returns when it ends its task and whether it is about to start it.
func (s *state) pureSpawnShape(g *gor, t float64) (end float64, starting, ok bool) {
	if g.resume != resNone || g.clock != t || g.team == nil || g.core < 0 {
		return 0, false, false
	}
	switch len(g.frames) {
	case 0:
		return t, false, true // done: it ends at t
	case 1:
		top := &g.frames[0]
		r := top.run
		if top.kind != fTask || r == nil || !r.pure || top.i != 0 || top.rep != 0 || top.walked {
			return 0, false, false
		}
		d := r.work * s.burden
		if !isInt(d) {
			return 0, false, false
		}
		return t + d, true, true
	}
	return 0, false, false
}

// lockstepSpawnPure advances the cores by as many pure spawned rounds as
// it can (see above) and reports whether it did.
func (s *state) lockstepSpawnPure() bool {
	if s.spans != nil || s.stepwise || !s.gridBurden || s.h[0].kind != evG || !isInt(s.h[0].t) || s.ready.len() == 0 {
		return false
	}
	g0 := s.gs[s.h[0].id]
	if _, _, ok := s.pureSpawnShape(g0, s.h[0].t); !ok {
		return false
	}
	tm := g0.team
	if tm.waiter == nil && s.now >= s.aheadUntil {
		// The spawner is still spawning, and its next spawn comes
		// within a round (spawnRun queues what it can before the next
		// event) unless it queued ahead (spawnAhead).
		return false
	}
	// The length of the queued tasks: the front entry's.
	e0 := s.ready.at(0)
	if !freshPure(e0, tm) {
		return false
	}
	// A round is a task and the start of its goroutine (SpawnRunNs;
	// see start).
	d0 := e0.run.work * s.burden
	period := d0 + s.ov.SpawnRunNs
	if !isInt(period) || !(period > 0) {
		return false
	}
	// Goroutines queued alike, from the front: first, as it is the
	// cheaper look (a round takes one per core, and one core two).
	var queued int64
	for i := 0; i < s.ready.entries.len(); i++ {
		e := s.ready.at(i)
		if !freshPure(e, tm) || e.run.work*s.burden != d0 {
			break
		}
		queued += e.n
	}
	if queued < 2 {
		return false
	}
	members, foreign, first, last := s.gather(func(g *gor, ev *event) (float64, uint64, bool) {
		end, starting, ok := s.pureSpawnShape(g, ev.t)
		if !ok || g.team != tm || !isInt(end) {
			return 0, 0, false
		}
		// One about to start its task (its event is now) queues its
		// end event when it runs: after every event queued so far, in
		// the order of the starts.
		if starting {
			return end, ev.seq + s.seq, true
		}
		return end, ev.seq, true
	})
	// A core further on (its task longer) waits as a foreign event.
	members, foreign, last = s.within(members, foreign, first, period, true)
	k := int64(len(members))
	if k == 0 {
		return false
	}
	if last+float64(queued/k)*period >= maxExact {
		return false
	}
	n := roundsBefore(queued/k, last, period, 0, foreign)
	if n < 1 || k == 1 && n < 2 || int64(tm.pending)-k*n < 1 {
		return false
	}
	// The loop takes ends at the same time in the order of their
	// events, and queues each core's next one in that order: so every
	// round keeps the order.
	sortSteppers(members)
	// Core i ends goroutines at E_i + j·period, j < n, each time taking
	// the next one; its last one, taken at E_i + (n−1)·period, ends a
	// period later. Busy time runs from each core's goroutine's start
	// to where its last one started.
	for _, m := range members {
		g := m.g
		started := m.t + float64(n-1)*period
		s.busy += started - s.coreSince[g.core]
		s.coreSince[g.core] = started
		s.end = max(s.end, started)
		// Each start on the core ends the pin of the goroutine in its
		// runnext slot (see onCore).
		s.coreSeq[g.core] += uint32(n)
		g.frames = g.frames[:0]
		g.clock = started + period
	}
	s.ready.dropFresh(n * k)
	tm.pending -= int(n * k)
	s.now = max(s.now, last+float64(n-1)*period)
	// Their next events: each ends its last goroutine, in the order
	// the loop would have queued them (the order of their starts).
	s.resequence(members)
	return true
}

// roundOrder sorts members by event time (then sequence) and reports
// whether they can advance in lockstep rounds of length period with lock
// lockID held for hold each: the requests of one round are at least hold
// apart and fit in the period, and nobody holds or waits for the lock
// before the first one. It returns the first and last request times.
func (s *state) roundOrder(members []stepper, period, hold float64, lockID int32) (first, last float64, ok bool) {
	// The checks that need no order come first: most calls fail them,
	// and then the members need not be sorted.
	first, last = members[0].t, members[0].t
	for _, m := range members[1:] {
		first, last = min(first, m.t), max(last, m.t)
	}
	if !(first+period > last && first+period-last >= hold) {
		return first, last, false
	}
	lk := s.lock(lockID)
	if lk.waiters.len() > 0 || lk.releaseAt > first {
		return first, last, false
	}
	sortSteppers(members)
	for i := 1; i < len(members); i++ {
		if d := members[i].t - members[i-1].t; !(d > 0 && d >= hold) {
			return first, last, false
		}
	}
	// With the cost of a lock moving between cores, the rounds are
	// alike only if every Lock moves it (two or more members, each on
	// its own core: the first one's too, from where the lock was last
	// taken) or none does (one member, on the lock's core).
	if s.ov.LockMigrateNs > 0 && lk.migrates(members[0].g.core) != (len(members) >= 2) {
		return first, last, false
	}
	return first, last, true
}

// sortSteppers sorts members by event time, then sequence: the order
// the event loop takes them in.
func sortSteppers(members []stepper) {
	if len(members) <= 32 {
		// By insertion, faster than a general sort for a team's
		// worth of members.
		for i := 1; i < len(members); i++ {
			m := members[i]
			j := i
			for ; j > 0 && (m.t < members[j-1].t || m.t == members[j-1].t && m.seq < members[j-1].seq); j-- {
				members[j] = members[j-1]
			}
			members[j] = m
		}
		return
	}
	slices.SortFunc(members, func(a, b stepper) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// roundsBefore returns how many rounds, up to nmax, fit before the first
// foreign event: the largest n whose round n-1 ends its last action, at
// last + (n-1)·period + tail, before foreign.
func roundsBefore(nmax int64, last, period, tail, foreign float64) int64 {
	if math.IsInf(foreign, 1) {
		return nmax
	}
	n := min(nmax, int64(math.Ceil((foreign-last-tail)/period)))
	for n > 0 && last+float64(n-1)*period+tail >= foreign {
		n--
	}
	for n < nmax && last+float64(n)*period+tail < foreign {
		n++
	}
	return n
}

// finishRounds books n lockstep rounds of members (the last request of
// the first round at last): the lock acquisitions, the lock's release
// after the last round's request, the clock, and the members' new events,
// sequenced in round order, in the heap. It returns when the last round
// is done (its last request plus tail).
func (s *state) finishRounds(members []stepper, n int64, last, period, hold, tail float64, lockID int32) float64 {
	s.nLock += int(n * int64(len(members)))
	lastReq := last + float64(n-1)*period
	lk := s.lock(lockID)
	lk.hold(members[len(members)-1].g, lastReq+hold)
	lk.lastCore = int32(members[len(members)-1].g.core)
	s.now = max(s.now, lastReq+tail)
	s.resequence(members)
	return lastReq + tail
}

// resequence moves the members' events to their clocks, with fresh
// sequence numbers in the members' order, and restores the heap.
func (s *state) resequence(members []stepper) {
	for _, m := range members {
		s.seq++
		s.h[m.ev].t, s.h[m.ev].seq = m.g.clock, s.seq
	}
	for i := len(s.h)/2 - 1; i >= 0; i-- {
		s.h.down(i)
	}
}

// Pure rounds: the workers of a dynamic:C team taking chunks of a run of
// identical tasks made of U nodes only interact only through the team's
// chunk counter. A worker takes a chunk (charging ChunkNs), runs its C
// tasks and is back for the next one a period Q = ChunkNs + C·P later.
// When every pending event before the window's end is such a worker about
// to take a chunk, and their times lie within one period, they take
// chunks in the same order every round: round j is round 0 shifted by
// j·Q. lockstepPure advances them all by n rounds in one step, as the
// event loop would (times on the grid, as in lockstep); which worker gets
// which chunk does not matter, since the chunks are alike.

// runAt names run run of team tm's section.
type runAt struct {
	tm  *team
	run int
}

// pureShape reports whether g, whose event is at t, is a dynamic worker
// about to take its next chunk, and returns its worker frame.
func pureShape(g *gor, t float64) (*frame, bool) {
	n := len(g.frames)
	if n == 0 || g.resume != resNone || g.clock != t {
		return nil, false
	}
	wf := &g.frames[n-1]
	if wf.kind != fWorker || wf.left != 0 || wf.info.dense {
		return nil, false
	}
	return wf, true
}

// lockstepPure advances the workers of a team in pure rounds by as many
// rounds as it can (see above) and reports whether it did.
func (s *state) lockstepPure() bool {
	if s.spans != nil || s.stepwise || !s.gridBurden || s.fetchC == 0 ||
		s.h[0].kind != evG || !isInt(s.h[0].t) {
		return false
	}
	wf0, ok := pureShape(s.gs[s.h[0].id], s.h[0].t)
	if !ok {
		return false
	}
	tm := wf0.team
	if tm.k < 2 || tm.next >= tm.info.n {
		return false
	}
	r := &tm.info.runs[tm.cur.run]
	cs := s.fetchC
	left := r.count - tm.cur.off
	if left < 4*cs || s.pureTail == (runAt{tm, tm.cur.run}) {
		// Two rounds of two members need four chunks; and the run's
		// tail, once too short for the members, mostly stays so: the
		// look at them is not taken again there (a round of fewer
		// members that would fit later is left to the steps, exactly
		// as it would come out of the rounds).
		return false
	}
	// Every fetch of the rounds follows another member's, from another
	// core (checked below for the first), work after the member's last
	// fetch ended: each moves the line at fetchCosts' cost for that
	// interval (the short end's, below its reach).
	work := float64(cs) * r.work * s.burden
	mig, serve := s.fetchCosts(s.fetchMigNs, work)
	chunkNs := s.fetchNs + mig
	period := chunkNs + work
	if !r.pure || !isInt(chunkNs) || !isInt(work) || !isInt(period) || !(period > 0) || !isInt(serve) {
		return false
	}
	members, foreign, first, last := s.gather(func(g *gor, ev *event) (float64, uint64, bool) {
		wf, ok := pureShape(g, ev.t)
		return ev.t, ev.seq, ok && wf.team == tm
	})
	// Within one round, every member takes one chunk: each one's next
	// fetch comes after the others' current ones (at a tie, its fresh
	// sequence number puts it after them). A worker further on (one
	// whose task was longer) waits as a foreign event. A round lasts
	// the period, or k of the counter's serving times where the k
	// members ask for it faster than it serves (see counterRounds).
	round := max(period, float64(len(members))*serve)
	members, foreign, last = s.within(members, foreign, first, round, false)
	k := int64(len(members))
	if k < 2 {
		return false
	}
	// Round 0 and at least one more must fit in what is left of the run.
	nmax := left / (k * cs)
	if nmax < 2 {
		s.pureTail = runAt{tm, tm.cur.run}
		return false
	}
	sortSteppers(members)
	if s.fetchMigNs > 0 && !tm.migrates(members[0].g.core) {
		return false
	}
	if s.chunkCurve.EndNs() > 0 {
		for _, m := range members {
			if m0, s0 := s.fetchCosts(s.fetchMigNs, m.t-m.g.fetchEnd); m0 != mig || s0 != serve {
				return false // its last chunk was of another length
			}
		}
	}
	round, free, ok := counterRounds(members, last, period, serve, tm.counterFree)
	if !ok {
		return false
	}
	last1 := members[k-1].t
	if last1+float64(nmax)*round >= maxExact {
		return false
	}
	// Round 0, and the rounds from round 1 on whose last chunk fetch
	// comes before every foreign event.
	n := 1 + roundsBefore(nmax-1, last1, round, 0, foreign)
	if n < 2 {
		return false
	}
	for _, m := range members {
		m.g.clock = m.t + float64(n-1)*round
		m.g.fetchEnd = m.g.clock - work
	}
	tm.fetchedOn = int32(members[k-1].g.core) + 1
	tm.counterFree = free + float64(n-2)*round
	tasks := n * k * cs
	tm.next += tasks
	tm.info.advance(&tm.cur, tasks)
	s.nChunk += int(n * k)
	s.now = max(s.now, last1+float64(n-2)*round)
	s.resequence(members)
	return true
}

// counterRounds takes members, sorted by time (the last at last), each
// about to fetch from the team's counter and back for its next fetch
// period after its fetch begins, through their round 0 of fetches as
// fetch charges them: every fetch takes the counter's line for serve,
// during which a fetch waits, the line free from free on. Each member's
// t becomes its round-1 request. It reports whether the rounds from
// round 1 on repeat, every one the one before shifted by round: the
// period where the line keeps up, k·serve where the members ask for it
// faster than it serves and queue (round 1 is where members that queued
// have fallen into step). For that, every round-1 request must come
// after round 0's last fetch, and round 2, worked out, must be round 1
// shifted; by induction every later one is too. It returns the round's
// length and when the line is free after round 1.
func counterRounds(members []stepper, last, period, serve, free float64) (round, after float64, ok bool) {
	round = max(period, float64(len(members))*serve)
	line := free
	for i := range members {
		start := max(members[i].t, line)
		line = start + serve
		members[i].t = start + period
	}
	if members[0].t < last || !isInt(round) || !isInt(line) {
		return 0, 0, false
	}
	// Round 1's fetches begin at max(t, line free); then round 2's.
	after = line
	for _, m := range members {
		after = max(m.t, after) + serve
	}
	line1, line2 := line, after
	for _, m := range members {
		start := max(m.t, line1)
		line1 = start + serve
		next := start + period // its round-2 request
		start2 := max(next, line2)
		if next != m.t+round || start2 != start+round {
			return 0, 0, false
		}
		line2 = start2 + serve
	}
	return round, after, true
}

// within keeps the members whose times lie within span of first (the
// members' earliest; strictly less than span from it where strict is
// set), and returns them, with the earliest time of every other event
// (the members dropped count at their events' times) and the kept
// members' latest time. It keeps the members' order.
func (s *state) within(members []stepper, foreign, first, span float64, strict bool) ([]stepper, float64, float64) {
	kept := members[:0]
	last := math.Inf(-1)
	for _, m := range members {
		if d := m.t - first; d < span || !strict && d == span {
			kept = append(kept, m)
			last = max(last, m.t)
			continue
		}
		foreign = min(foreign, s.h[m.ev].t)
	}
	s.steppers = kept
	return kept, foreign, last
}

// gather collects, as s.steppers, the goroutine events on the grid that
// member accepts, each at the time and with the sequence number member
// gives it (a member's next event may lie ahead of its current one), and
// returns them with the earliest time of every other event and the
// members' earliest and latest times.
func (s *state) gather(member func(g *gor, ev *event) (float64, uint64, bool)) (members []stepper, foreign, first, last float64) {
	members = s.steppers[:0]
	foreign, first, last = math.Inf(1), math.Inf(1), math.Inf(-1)
	for i := range s.h {
		ev := &s.h[i]
		if ev.kind == evG && isInt(ev.t) {
			g := s.gs[ev.id]
			if t, seq, ok := member(g, ev); ok {
				members = append(members, stepper{t: t, seq: seq, g: g, ev: i})
				first, last = min(first, t), max(last, t)
				continue
			}
		}
		foreign = min(foreign, ev.t)
	}
	s.steppers = members
	return members, foreign, first, last
}
