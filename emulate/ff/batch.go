package ff

import (
	"math"
)

// batch runs up to m tasks of run r (r.oneL: U nodes, one L, U nodes) on
// g, the goroutine of the current event, in one step, and returns how
// many it ran. It runs those whose lock request comes before every other
// pending event (so no other goroutine acts in between; the lock, free
// at the first request, is then released by g itself before each next
// one), which is exactly what walking them one by one does. It runs none
// unless every time involved is on the grid (a burden and a lock cost on
// the grid, as Emulator rounds them, g's clock on it): then the closed
// form c + j·P adds up to exactly the same float64 values as the
// step-by-step sums.
func (s *state) batch(g *gor, r *taskRun, m int64) int64 {
	if s.stepwise {
		return 0
	}
	lr := s.scaled(r.lenL)
	m = min(m, s.quietHolds(lr))
	if m < 2 || !s.gridBurden {
		return 0
	}
	lockNs := s.lockNs
	c := g.clock
	a, l, b := s.scaled(r.preL), s.held(lr), s.scaled(r.postL)
	p := a + lockNs + l + b
	if !isInt(c) || !isInt(lockNs) || !isInt(p) || c+float64(m)*p >= maxExact || c < s.now {
		return 0
	}
	lk := s.lock(r.lockID)
	req := c + a
	if lk.waiters.len() > 0 || lk.releaseAt > req || s.migrateNs(lk, g.core) > 0 {
		return 0 // the step-by-step path takes the lock over first
	}
	// Requests at req + j·p for j < k must come before lim.
	lim := s.limit()
	if req >= lim {
		return 0
	}
	k := m
	if p > 0 && !math.IsInf(lim, 1) {
		// The number of j >= 0 with req + j·p < lim: ceil((lim-req)/p).
		k = min(m, int64(math.Ceil((lim-req)/p)))
		for k > 1 && req+float64(k-1)*p >= lim {
			k--
		}
		for k < m && req+float64(k)*p < lim {
			k++
		}
	}
	last := req + float64(k-1)*p
	s.now = max(s.now, last)
	lk.hold(g, last+lockNs+l)
	lk.lastCore = int32(g.core)
	g.clock = c + float64(k)*p
	s.nLock += int(k)
	s.passHolds(lr, k)
	return k
}

// batchStatic runs, for static:C, whole chunks of worker frame f (whose
// chunk starting at task lo it has just taken: f.cur, f.left and f.nextLo
// set for it) in one step while they lie in the same run of identical
// tasks: one worker's chunks of a run, C tasks every k·C, take the same
// time as as many tasks back to back (static chunks cost nothing to
// take), so batch does them. It reports whether it ran any.
func (s *state) batchStatic(g *gor, f *frame, lo, c int64) bool {
	if s.stepwise {
		return false
	}
	info := f.info
	if info.dense || s.spans != nil || f.left != c {
		return false
	}
	r := &info.runs[f.cur.run]
	if !r.oneL && !r.pure {
		return false
	}
	stride := int64(f.team.k) * c
	end := r.start + r.count
	// Chunks lo + i·stride, i < j, lie wholly in r.
	if lo+c > end {
		return false
	}
	j := (end-lo-c)/stride + 1
	if j < 2 && c < 2 {
		return false
	}
	var d int64
	if r.pure {
		d = s.batchPure(g, r, j, c)
	} else {
		d = s.batch(g, r, j*c)
	}
	if d == 0 {
		return false
	}
	done, rem := d/c, d%c
	at := lo + done*stride
	if rem == 0 {
		// The next chunk is taken in the usual way.
		f.left, f.nextLo = 0, at
		return true
	}
	f.left = min(c, info.n-at) - rem
	f.cur = info.seekFrom(f.cur, at+rem)
	f.nextLo = at + stride
	return true
}

// batchPure runs on g, in one step, j static:C chunks of c tasks each
// of pure run r (tasks of U nodes only: they interact with nothing, and
// static chunks cost nothing to take) and returns how many tasks it ran:
// j·c, or 0 when the closed form would not add up to exactly the
// chunk-by-chunk sums (the burden, g's clock and the chunk's time on the
// grid; see batch).
func (s *state) batchPure(g *gor, r *taskRun, j, c int64) int64 {
	if !s.gridBurden || j < 2 {
		return 0
	}
	d := float64(c) * r.work * s.burden
	if !isInt(g.clock) || !isInt(d) || g.clock+float64(j)*d >= maxExact {
		return 0
	}
	g.clock += float64(j) * d
	return j * c
}

// batchDynamic, for dynamic:C with a team of two or more, runs on g (the
// worker of frame f, about to take its next chunk) as many whole chunks
// as it can in one step while they come from one run of identical tasks
// (r.oneL): chunk q is taken at c + q·Q (Q = ChunkNs + C·P) and its tasks
// run back to back. It takes them when every chunk fetch and lock request
// comes before every other pending event, so that no other worker takes
// a chunk or the lock in between, and every time involved is an integer,
// so that the closed form adds up to exactly what the step-by-step
// emulation gives (see batch). It reports whether it ran any.
func (s *state) batchDynamic(g *gor, f *frame) bool {
	if s.stepwise {
		return false
	}
	info, tm := f.info, f.team
	cs := s.fetchC
	if cs == 0 || tm.k < 2 || info.dense || s.spans != nil || !s.gridBurden || tm.next >= info.n {
		return false
	}
	r := &info.runs[tm.cur.run]
	lr := s.scaled(r.lenL)
	jmax := min(r.count-tm.cur.off, s.quietHolds(lr)) / cs
	if !r.oneL || jmax < 1 {
		return false
	}
	lockNs, chunkNs := s.lockNs, s.fetchNs
	c := g.clock
	a, l := s.scaled(r.preL), s.held(lr)
	p := a + lockNs + l + s.scaled(r.postL)
	q := chunkNs + float64(cs)*p
	if !isInt(c) || !isInt(lockNs) || !isInt(chunkNs) || !isInt(q) || c+float64(jmax)*q >= maxExact || c < s.now {
		return false
	}
	lim := s.limit()
	if c > s.now && c >= lim {
		return false
	}
	lk := s.lock(r.lockID)
	req := c + chunkNs + a
	if lk.waiters.len() > 0 || lk.releaseAt > req || s.migrateNs(lk, g.core) > 0 {
		return false // the step-by-step path takes the lock over first
	}
	if s.fetchMigNs > 0 && tm.migrates(g.core) || tm.counterFree > c {
		return false // and the counter
	}
	// The last request of chunk j-1 must come before lim.
	tail := chunkNs + float64(cs-1)*p + a
	j := jmax
	if !math.IsInf(lim, 1) {
		if q > 0 {
			j = min(jmax, int64(math.Ceil((lim-c-tail)/q)))
			for j > 0 && c+float64(j-1)*q+tail >= lim {
				j--
			}
			for j < jmax && c+float64(j)*q+tail < lim {
				j++
			}
		} else if c+tail >= lim {
			j = 0
		}
	}
	if j < 1 {
		return false
	}
	last := c + float64(j-1)*q + tail
	s.now = max(s.now, last)
	lk.hold(g, last+lockNs+l)
	lk.lastCore = int32(g.core)
	tm.fetchedOn = int32(g.core) + 1
	g.clock = c + float64(j)*q
	// The last chunk's fetch ended its tasks before g's next one.
	g.fetchEnd = g.clock - float64(cs)*p
	n := j * cs
	s.nLock += int(n)
	s.nChunk += int(j)
	s.passHolds(lr, n)
	tm.next += n
	info.advance(&tm.cur, n)
	f.left = 0
	return true
}

// scaled returns length x (ns) times the section's burden factor, as
// walk charges it: exactly that, on the grid, when gridBurden is set and
// the product is below maxExact.
func (s *state) scaled(x int64) float64 { return float64(x) * s.burden }

// spawnRun spawns, in one step, as many of the remaining tasks of run r
// (the task child f.i of the section of spawner frame f, f.rep of them
// spawned already) as g can spawn before any other pending event: each
// costs SpawnNs and happens at its time only if no other event comes
// first (exactly as one by one), and no core is idle, so spawning only
// queues the goroutines (as fresh entries, made when a core takes them).
// It needs every time on the grid, as state.batch does, and reports
// whether it spawned any.
func (s *state) spawnRun(g *gor, f *frame, r *taskRun, tm *team) bool {
	if s.stepwise || s.spans != nil || len(s.idle) > 0 || s.spawnLimit > 0 {
		return false
	}
	m := s.p.kids(f.node)[f.i].count() - f.rep
	spawnNs := s.spawnNs
	c := g.clock
	if m < 2 || !isInt(c) || !isInt(spawnNs) || c < s.now || c+float64(m)*spawnNs >= maxExact {
		return false
	}
	// Spawn i (1..j) happens at c + i·spawnNs: at the current time, or
	// before lim (the next event, or beyond it while the queue has
	// enough for every core until then: spawnAhead).
	next := s.limit()
	lim := next
	if ahead := s.spawnAhead(g, tm); ahead > lim && spawnNs > 0 {
		lim = ahead
	}
	j := m
	switch {
	case spawnNs == 0:
		if c > s.now && c >= lim {
			j = 0
		}
	case !math.IsInf(lim, 1):
		j = min(m, int64(math.Ceil((lim-c)/spawnNs))-1)
		for j > 0 && c+float64(j)*spawnNs >= lim {
			j--
		}
		for j < m && c+float64(j+1)*spawnNs < lim {
			j++
		}
		j = max(j, 0)
	}
	if j < 2 {
		return false
	}
	g.clock = c + float64(j)*spawnNs
	if g.clock < next {
		s.now = max(s.now, g.clock)
	} else {
		// Ahead of the next event: the spawner yields at its next
		// spawn (the caller pays it) and waits there.
		s.aheadUntil = g.clock
	}
	s.nSpawn += int(j)
	tm.spawned += int(j)
	tm.pending += int(j)
	f.rep += j
	if f.rep >= s.p.kids(f.node)[f.i].count() {
		f.i++
		f.rep = 0
		f.w++
	}
	s.pushFresh(j, r.node, r, tm, g.core)
	return true
}

// spawnAhead returns how far spawner g of team tm may queue the
// goroutines of its spawns beyond the next pending event (0: no
// further). While every other core runs a goroutine of a pure task of
// tm (no core idle or being woken, nothing else pending) and the ready
// queue holds only fresh goroutines of pure tasks of tm, Q of them, the
// tasks at least Lmin long, the k busy cores take at most
// k·(1 + ⌊(T − now)/Lmin⌋) goroutines up to time T: up to
// now + (⌊Q/k⌋ − 1)·Lmin, only goroutines queued before. Goroutines
// spawned before then go behind those, and every core finds the queue
// as it would have with the spawns made one by one at their times. (A
// task of another team, a lock, a nested section or a wake-up could
// take goroutines faster: then nothing is queued ahead.)
func (s *state) spawnAhead(g *gor, tm *team) float64 {
	q := s.ready.len()
	k := s.t - 1
	// len(s.h) == t: the spawner and an event for every other core (a
	// core without one is idle, or its goroutine blocked).
	if k < 1 || s.waking > 0 || q < 2*k || tm.waiter != nil || len(s.h) != s.t {
		return 0
	}
	for i := range s.h {
		ev := &s.h[i]
		if ev.kind != evG {
			return 0
		}
		o := s.gs[ev.id]
		if o == g {
			continue
		}
		if _, _, ok := s.pureSpawnShape(o, ev.t); !ok || o.team != tm {
			return 0
		}
	}
	// A lower bound of the queued tasks' least length only brings the
	// time returned closer, where fewer spawns are queued ahead at once.
	pure, work := s.ready.allPure(tm)
	if !pure {
		return 0
	}
	lmin := work * s.burden
	if !(lmin > 0) || math.IsInf(lmin, 1) {
		return 0
	}
	// Each goroutine's start costs its core SpawnRunNs as well.
	return s.now + float64(q/k-1)*(lmin+s.ov.SpawnRunNs)
}
