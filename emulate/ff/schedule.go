package ff

import (
	"math"
	"strconv"

	"github.com/parallel-prophet/prophet/emulate"
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
		if s.sched.Policy == par.Spawn {
			f.phase = phSpawn
			return stCont
		}
		s.serialU(g, f.info.leadU, f.node)
		f.phase = phFork
		return stCont
	case phFork:
		info := f.info
		k := int(min(int64(s.t), info.n))
		if k > 1 {
			if !s.pay(g, f, &s.nFork, s.ov.ForkNs, "fork") {
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
		tm.waiter = g
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
				if !s.pay(g, f, &s.nSpawn, s.ov.SpawnNs, "spawn") {
					return stYield
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
	return stCont
}

// workerFrame is the frame of worker w of tm.
func (s *state) workerFrame(tm *team, w int) frame {
	f := frame{kind: fWorker, team: tm, info: tm.info, w: w, sec: tm.sec}
	n := tm.info.n
	switch s.sched.Policy {
	case par.Static:
		k := int64(tm.k)
		q, r := n/k, n%k
		lo := int64(w)*q + min(int64(w), r)
		size := q
		if int64(w) < r {
			size++
		}
		if size > 0 {
			f.cur = tm.info.seek(lo)
			f.left = size
		}
		f.nextLo = -1
	case par.StaticChunk:
		f.nextLo = int64(w) * int64(chunk(s.sched))
	}
	return f
}

func chunk(sc par.Schedule) int {
	if sc.Chunk < 1 {
		return 1
	}
	return sc.Chunk
}

// stepWorker advances the fWorker frame at index top of g.
func (s *state) stepWorker(g *gor, top int) step {
	f := &g.frames[top]
	info := f.info
	if f.left == 0 {
		// The next chunk.
		switch s.sched.Policy {
		case par.StaticChunk:
			if f.nextLo >= 0 && f.nextLo < info.n {
				c := int64(chunk(s.sched))
				lo := f.nextLo
				f.left = min(c, info.n-lo)
				f.cur = info.seekFrom(f.cur, lo)
				f.nextLo += int64(f.team.k) * c
				if s.batchStatic(g, f, lo, c) {
					return stCont
				}
			}
		case par.Dynamic, par.Guided:
			tm := f.team
			if s.batchDynamic(g, f) {
				return stCont
			}
			if tm.k > 1 {
				if !s.at(g) {
					return stYield
				}
			}
			if tm.next < info.n {
				rem := info.n - tm.next
				var size int64
				if s.sched.Policy == par.Dynamic {
					size = min(int64(chunk(s.sched)), rem)
				} else {
					size = int64(s.sched.GuidedChunk(int(min(rem, math.MaxInt32)), tm.k))
					if size < 1 {
						size = 1
					}
				}
				f.cur = tm.cur
				f.left = size
				tm.next += size
				info.advance(&tm.cur, size)
				if tm.k > 1 {
					s.nChunk++
					s.overhead(g, s.ov.ChunkNs, "chunk", f.sec)
				}
			}
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
