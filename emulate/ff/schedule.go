package ff

import (
	"fmt"
	"math"
	"strconv"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// stepSec advances the fSec frame at index top of g: the goroutine that
// encountered a section forks its team (or spawns its tasks), works as
// worker 0, and joins.
func (s *state) stepSec(g *gor, top int) step {
	f := &g.frames[top]
	switch f.phase {
	case phInit:
		tm := s.newTeam()
		tm.sec = f.node
		tm.info = s.info(f.node, &tm.own)
		f.info, f.team = tm.info, tm
		if s.perTask {
			f.phase = phSpawn
			return stCont
		}
		s.serialU(g, f.info.leadU, f.node)
		f.phase = phFork
		return stCont
	case phFork:
		info := f.info
		k := int(min(int64(s.t), info.n))
		if d := s.rule.forkNs(&s.ov, info.n, k); d > 0 || k > 1 {
			if !s.pay(g, f, &s.nFork, d, "fork") {
				return stYield
			}
		}
		tm := f.team
		tm.k = k
		for w := 1; w < k; w++ {
			s.spawnG(s.workerFrame(tm, w), tm, g.core)
		}
		s.serialU(g, info.midU, f.node)
		f.phase = phJoin
		if k > 0 {
			g.frames = append(g.frames, s.workerFrame(tm, 0))
		}
		return stCont
	case phJoin:
		tm := f.team
		if f.node.nowait() || tm.k <= 1 && tm.spawned == 0 {
			f.phase = phDone
			return stCont
		}
		if !s.at(g) {
			return stYield
		}
		s.nJoin++
		f.phase = phDone
		if tm.pending == 0 {
			s.overhead(g, s.ov.JoinNs, "join", f.node)
			return stCont
		}
		tm.waiter, tm.waitAt = g, 0
		g.resume = resJoin
		s.leave(g, emulate.SpanIdle)
		return stBlock
	case phDone:
		if tm := f.team; tm != nil && !f.node.nowait() {
			// Every member has ended: the team can be reused.
			f.team, f.info = nil, nil
			*tm = team{}
			s.teams = append(s.teams, tm)
		}
		g.frames = g.frames[:top]
		return stCont
	case phSpawn:
		return s.stepSpawn(g, f)
	}
	return stCont
}

// stepSpawn advances the spawning phase of fSec frame f of g: it runs the
// section's own U nodes and spawns its tasks, one goroutine each, in
// order, waiting for a slot where the schedule limits how many run.
func (s *state) stepSpawn(g *gor, f *frame) step {
	ch := s.p.kids(f.node)
	if f.i >= len(ch) {
		f.phase = phJoin
		return stCont
	}
	c := &ch[f.i]
	switch c.kind() {
	case tree.KindU:
		s.serialU(g, float64(c.len())*float64(c.count()-f.rep), f.node)
		f.i++
		f.rep = 0
	case tree.KindTask:
		// Spawn the run's tasks one after the other, while g
		// stays the earliest.
		tm := f.team
		var run *taskRun
		if !f.info.dense {
			// f.w counts the task children done: the run index.
			run = &f.info.runs[f.w]
		}
		for {
			if !f.charged && run != nil && s.spawnRun(g, f, run, tm) {
				if f.rep == 0 {
					break
				}
				continue
			}
			if !f.charged && s.spawnLimit > 0 {
				// At most spawnLimit running: wait for a slot.
				if !s.at(g) {
					return stYield
				}
				if tm.pending >= s.spawnLimit {
					tm.waiter, tm.waitAt = g, s.spawnLimit-1
					g.resume = resSlot
					s.leave(g, emulate.SpanIdle)
					return stBlock
				}
			}
			if !s.pay(g, f, &s.nSpawn, s.spawnNs, "spawn") {
				return stYield
			}
			if s.spawnCycle(g, f, run, c.count(), tm) {
				// Skipped on to a spawn of a later task child.
				c, run = &s.p.kids(f.node)[f.i], &f.info.runs[f.w]
			}
			tm.spawned++
			f.rep++
			last := f.rep >= c.count()
			if last {
				f.i++
				f.rep = 0
				f.w++
			}
			// spawnG touches other goroutines only: f stays valid.
			s.spawnTask(c, run, tm, g.core)
			if last {
				break
			}
		}
	default:
		s.fail("section %q holds a %s node", s.p.name(f.node), c.kind())
		return stBlock
	}
	return stCont
}

// workerFrame is the frame of worker w of tm, set up by the schedule.
func (s *state) workerFrame(tm *team, w int) frame {
	f := frame{kind: fWorker, team: tm, info: tm.info, w: w, sec: tm.sec}
	f.cur, f.left, f.nextLo = s.rule.assign(tm.info, tm.k, w)
	return f
}

// stepWorker advances the fWorker frame at index top of g: it takes the
// worker's next chunk from the schedule when the current one is done,
// and runs the chunk's tasks.
func (s *state) stepWorker(g *gor, top int) step {
	f := &g.frames[top]
	info := f.info
	if info.setupU > 0 && !f.strandPaid {
		// The section's own per-worker setup, before the first task.
		f.strandPaid = true
		s.serialU(g, info.setupU, f.sec)
	}
	if f.left == 0 {
		switch s.rule.next(s, g, f) {
		case tookWait:
			return stYield
		case tookRan:
			return stCont
		}
		if f.left == 0 {
			// Out of work.
			g.frames = g.frames[:top]
			return stCont
		}
	}
	if info.dense {
		for f.left > 0 {
			tf := frame{kind: fTask, node: &s.p.nodes[info.node.first()+int32(f.cur.run)], sec: f.sec}
			f.left--
			f.cur.run++
			if done, st := s.walkNew(g, &tf); !done {
				g.frames = append(g.frames, tf)
				return st
			}
		}
		return stCont
	}
	r := &info.runs[f.cur.run]
	if r.pure {
		m := min(f.left, r.count-f.cur.off)
		d := float64(m) * r.work * s.burden
		if s.spans != nil {
			name := s.p.name(r.node)
			if m > 1 {
				name += " ×" + strconv.FormatInt(m, 10)
			}
			s.span(g.core, g.clock, g.clock+d, emulate.SpanTask, name, f.sec)
		}
		g.clock += d
		f.left -= m
		info.advance(&f.cur, m)
		return stCont
	}
	// Identical tasks: in one step as far as batch can, then one by one,
	// each walked at once where it can be.
	m := min(f.left, r.count-f.cur.off)
	var k int64
	if s.spans == nil && r.oneL {
		k = s.batch(g, r, m)
	}
	for k < m {
		tf := frame{kind: fTask, node: r.node, sec: f.sec, run: r}
		k++
		if done, st := s.walkNew(g, &tf); !done {
			f.left -= k
			info.advance(&f.cur, k)
			g.frames = append(g.frames, tf)
			return st
		}
	}
	f.left -= k
	info.advance(&f.cur, k)
	return stCont
}

// A schedule says how a section's tasks reach the goroutines that run
// them. The engine knows schedules only through this interface:
// stepSec forks a team of workers and joins it, or, for a schedule whose
// tasks are goroutines of their own, spawns them and joins them, the
// same for every schedule; forkNs, spawning, assign and next say what
// differs. shared and ownedChunk describe the schedule to the closed
// forms (batch.go, lockstep.go), which take many chunks at once where
// the schedule's shape allows; a schedule that gives no chunk size from
// either gets the shortcuts that hold for every schedule (within one
// chunk) and is otherwise emulated step by step. Adding a schedule is a
// type here and a case in newSchedule.
type schedule interface {
	// spawning says whether every task is a goroutine of its own,
	// spawned by the goroutine that encounters the section, rather than
	// a team of workers sharing the tasks out; if so, what each spawn
	// costs the spawner, and how many tasks may run at once on t
	// threads (0: no limit; the spawner waits for a slot).
	spawning(ov *machine.Overheads, t int) (perTask bool, spawnNs float64, limit int)
	// forkNs is what the encountering goroutine pays before a team of k
	// workers for n tasks starts: ForkNs for starting them (k > 1), and
	// whatever else the schedule's setup costs.
	forkNs(ov *machine.Overheads, n int64, k int) float64
	// assign says where worker w of a team of k starts on the n tasks
	// of info as the team forks: the tasks it owns from the start
	// (left of them, from cur on) and, for a schedule whose workers own
	// chunks ahead, the first task of its next one (nextLo; -1 for
	// none).
	assign(info *secInfo, k, w int) (cur cursor, left, nextLo int64)
	// next gives worker frame f of g its next chunk (f.cur, f.left),
	// f.left being 0; it leaves f.left 0 when the worker is done.
	// It charges what taking a chunk costs, and may run whole chunks
	// in closed form (tookRan).
	next(s *state, g *gor, f *frame) took
	// ownedChunk is C when every worker owns, from the start, chunks of
	// C tasks every k·C tasks (static:C), so that the closed forms can
	// look past its current chunk; 0 otherwise.
	ownedChunk() int64
	// shared is C, the cost of one fetch, and what a fetch costs more
	// when the last one was made on another core, when workers take
	// chunks of C tasks from the team's shared counter, each fetch
	// charged (dynamic:C, pool), so that the closed forms can take many
	// fetches at once; C is 0 otherwise.
	shared(ov *machine.Overheads) (c int64, fetchNs, migNs float64)
}

// took is what a schedule's next did.
type took uint8

const (
	tookChunk took = iota // f holds its next chunk, or none: the worker is done
	tookWait              // g must first wait for earlier events
	tookRan               // a closed form ran whole chunks: look again
)

// newSchedule returns the schedule sc names.
func newSchedule(sc par.Schedule) (schedule, error) {
	switch sc.Policy {
	case par.Static:
		return static{}, nil
	case par.Spawn:
		return spawn{}, nil
	case par.Pool:
		return pool{}, nil
	case par.Errgroup:
		return errgroup{}, nil
	case par.StaticChunk, par.Dynamic, par.Guided:
		if sc.Chunk < 1 {
			return nil, fmt.Errorf("schedule %s: chunk size must be at least 1", sc)
		}
		c := int64(sc.Chunk)
		switch sc.Policy {
		case par.StaticChunk:
			return staticChunk{c: c}, nil
		case par.Dynamic:
			return dynamic{c: c}, nil
		}
		return guided{sc: sc}, nil
	}
	return nil, fmt.Errorf("unknown schedule %s", sc)
}

// worksharing holds what the worksharing schedules have in common: a
// team of workers started with go statements (ForkNs), no chunks owned
// ahead nor fetched in fixed sizes unless the schedule says so.
type worksharing struct{}

func (worksharing) spawning(*machine.Overheads, int) (bool, float64, int) { return false, 0, 0 }
func (worksharing) ownedChunk() int64                                     { return 0 }
func (worksharing) shared(*machine.Overheads) (int64, float64, float64)   { return 0, 0, 0 }

func (worksharing) forkNs(ov *machine.Overheads, _ int64, k int) float64 {
	if k > 1 {
		return ov.ForkNs
	}
	return 0
}

// static gives each worker one contiguous block of the tasks, its share
// (the first n mod k workers one task more), at no cost.
type static struct{ worksharing }

func (static) assign(info *secInfo, k, w int) (cur cursor, left, nextLo int64) {
	n, kk, ww := info.n, int64(k), int64(w)
	q, r := n/kk, n%kk
	lo := ww*q + min(ww, r)
	left = q
	if ww < r {
		left++
	}
	if left > 0 {
		cur = info.seek(lo)
	}
	return cur, left, -1
}

func (static) next(*state, *gor, *frame) took { return tookChunk }

// staticChunk (static:C) deals chunks of C tasks round-robin: worker w
// owns the chunks starting at w·C, w·C + k·C, ..., and takes each at no
// cost.
type staticChunk struct {
	worksharing
	c int64
}

func (sc staticChunk) assign(_ *secInfo, _, w int) (cursor, int64, int64) {
	return cursor{}, 0, int64(w) * sc.c
}

func (sc staticChunk) next(s *state, g *gor, f *frame) took {
	info := f.info
	if f.nextLo < 0 || f.nextLo >= info.n {
		return tookChunk
	}
	lo := f.nextLo
	f.left = min(sc.c, info.n-lo)
	f.cur = info.seekFrom(f.cur, lo)
	f.nextLo += int64(f.team.k) * sc.c
	if s.batchStatic(g, f, lo, sc.c) {
		return tookRan
	}
	return tookChunk
}

func (sc staticChunk) ownedChunk() int64 { return sc.c }

// dynamic (dynamic:C) has workers take chunks of C tasks from the team's
// shared counter (an atomic add) as they run out, each fetch charged
// ChunkNs where the team has other workers to contend with (a lone
// worker takes its tasks without synchronizing), and ChunkMigrateNs
// more where the last fetch was made on another core.
type dynamic struct {
	worksharing
	c int64
}

func (dynamic) assign(*secInfo, int, int) (cursor, int64, int64) { return cursor{}, 0, 0 }

func (d dynamic) next(s *state, g *gor, f *frame) took {
	if f.team.k == 1 {
		// A lone worker takes its chunks one after the other at no
		// cost: all of them at once is the same run of tasks, in one
		// step instead of one per chunk.
		return s.fetch(g, f, f.info.n-f.team.next, false, 0, 0, "chunk")
	}
	if s.batchDynamic(g, f) {
		return tookRan
	}
	return s.fetch(g, f, min(d.c, f.info.n-f.team.next), true, s.ov.ChunkNs, s.ov.ChunkMigrateNs, "chunk")
}

func (d dynamic) shared(ov *machine.Overheads) (int64, float64, float64) {
	return d.c, ov.ChunkNs, ov.ChunkMigrateNs
}

// guided (guided:C) has workers take chunks from the team's shared
// counter, each fetch charged ChunkNs as dynamic's, of a size that
// shrinks with the tasks left (par.Schedule.GuidedChunk), never below C.
type guided struct {
	worksharing
	sc par.Schedule
}

func (guided) assign(*secInfo, int, int) (cursor, int64, int64) { return cursor{}, 0, 0 }

func (gd guided) next(s *state, g *gor, f *frame) took {
	n := int64(0)
	if rem := f.info.n - f.team.next; rem > 0 {
		n = max(int64(gd.sc.GuidedChunk(int(min(rem, math.MaxInt32)), f.team.k)), 1)
	}
	return s.fetch(g, f, n, f.team.k > 1, s.ov.ChunkNs, s.ov.ChunkMigrateNs, "chunk")
}

// pool is the worker-pool idiom (par.Pool): the encountering goroutine
// sends every task's index into a buffered channel (ChanSendNs each)
// and starts the workers, which receive the tasks one at a time
// (ChanRecvNs each: the channel's lock contended by the team).
type pool struct{ worksharing }

func (pool) forkNs(ov *machine.Overheads, n int64, k int) float64 {
	d := float64(n) * ov.ChanSendNs
	if k > 1 {
		d += ov.ForkNs
	}
	return d
}

func (pool) assign(*secInfo, int, int) (cursor, int64, int64) { return cursor{}, 0, 0 }

func (pool) next(s *state, g *gor, f *frame) took {
	if s.batchDynamic(g, f) {
		return tookRan
	}
	return s.fetch(g, f, 1, true, s.ov.ChanRecvNs, 0, "receive")
}

func (pool) shared(ov *machine.Overheads) (int64, float64, float64) { return 1, ov.ChanRecvNs, 0 }

// fetch gives worker frame f of g its next chunk from the team's shared
// counter, n tasks (the size the schedule picks for the tasks left),
// charging costNs (drawn as what) for the fetch when charge is set, and
// migNs more when the last charged fetch was made on another core. The
// counter serves one fetch at a time: a fetch that moves its cache line
// takes it for the counter's serving time (serveNs, ChunkServeNs), and
// a fetch made meanwhile waits for it first (a team of short tasks on
// many cores takes one chunk per serving time at most, however many
// workers ask). A team of two or more synchronizes at the fetch; a lone
// worker goes on.
func (s *state) fetch(g *gor, f *frame, n int64, charge bool, costNs, migNs float64, what string) took {
	tm, info := f.team, f.info
	if tm.k > 1 && !s.at(g) {
		return tookWait
	}
	if tm.next < info.n {
		f.cur = tm.cur
		f.left = n
		tm.next += n
		info.advance(&tm.cur, n)
		if charge {
			s.nChunk++
			wait := max(tm.counterFree-g.clock, 0)
			if migNs > 0 && tm.migrates(g.core) {
				mig, serve := s.fetchCosts(migNs, g.clock-g.fetchEnd)
				costNs += mig
				tm.counterFree = g.clock + wait + serve
			}
			costNs += wait
			tm.fetchedOn = int32(g.core) + 1
			s.overhead(g, costNs, what, f.sec)
			g.fetchEnd = g.clock
		}
	}
	return tookChunk
}

// fetchCosts returns what a fetch that moves the counter's line costs
// beyond its own cost and the counter's serving time for it: migNs and
// serveNs where the worker asks intervalNs after its last fetch ended or
// later than the short end's reach (chunkCurve), the short end's line
// below it (Overheads.ChunkMigrateFor), on the grid. The common case,
// no short end or a long interval, stays small enough to inline.
func (s *state) fetchCosts(migNs, intervalNs float64) (mig, serve float64) {
	if intervalNs >= s.chunkCurve.EndNs() {
		return migNs, s.serveNs
	}
	return s.shortFetchCosts(migNs, intervalNs)
}

// shortFetchCosts is fetchCosts below the short end's reach.
func (s *state) shortFetchCosts(migNs, intervalNs float64) (mig, serve float64) {
	m, sv := s.chunkCurve.For(intervalNs)
	return min(onGrid(m), migNs), min(onGrid(sv), s.serveNs)
}

// spawn runs every task as a goroutine of its own, spawned by the
// goroutine that encounters the section (SpawnNs each), and joins them
// all; there is no team of workers.
type spawn struct{ worksharing }

func (spawn) spawning(ov *machine.Overheads, _ int) (bool, float64, int) {
	return true, ov.SpawnNs, 0
}
func (spawn) assign(*secInfo, int, int) (cursor, int64, int64) { return cursor{}, 0, 0 }
func (spawn) next(*state, *gor, *frame) took                   { return tookChunk }

// errgroup runs every task as a goroutine of its own through an
// errgroup.Group limited to t goroutines at once (par.Errgroup): each Go
// takes the group's semaphore (a channel send, ChanSendNs) and starts a
// goroutine (SpawnNs); while t run, the spawner waits, and the first to
// end hands it its slot and its core.
type errgroup struct{ spawn }

func (errgroup) spawning(ov *machine.Overheads, t int) (bool, float64, int) {
	return true, ov.SpawnNs + ov.ChanSendNs, t
}
