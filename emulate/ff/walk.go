package ff

import (
	"github.com/parallel-prophet/prophet/tree"
)

// walk runs task frame f of g, the goroutine of the current event, over
// its U nodes and over its L nodes whose lock is free when g asks for it
// before any other pending event (exactly what run's general loop does
// for them, without a heap look-up per node). It returns stCont when the
// task is done, stYield when f stops at an L that must wait for earlier
// events (g must yield), and stBlock when f stops at a node that run's
// general loop must handle (an L whose lock is taken, a nested section, a
// bad node).
func (s *state) walk(g *gor, f *frame) step {
	if r := f.run; r != nil && r.flat {
		return s.walkFlat(g, f, r)
	}
	i0 := f.i
	st := s.walkNodes(g, f)
	s.step(int64(f.i-i0) + 1)
	return st
}

// walkNodes is walk without counting its steps.
func (s *state) walkNodes(g *gor, f *frame) step {
	lim := s.limit()
	ch := s.p.kids(f.node)
	for f.i < len(ch) {
		c := &ch[f.i]
		switch c.kind() {
		case tree.KindU:
			if c.setup() {
				return stBlock // run's general loop decides who pays it
			}
			g.clock += float64(c.len()) * float64(c.count()-f.rep) * s.burden
			f.i++
			f.rep = 0
		case tree.KindL:
			if st := s.walkL(g, c.ref(), float64(c.len())*s.burden, lim); st != stCont {
				return st
			}
			f.rep++
			if f.rep >= c.count() {
				f.i++
				f.rep = 0
			}
		default:
			return stBlock
		}
	}
	return stCont
}

// walkL takes, for g, a hold of l ns on lock id as walk does: when the
// lock is free, its line on g's core, and g's clock before lim (the
// next pending event), it returns stCont; else stYield (g must wait
// for earlier events) or stBlock (run's general loop takes the L).
func (s *state) walkL(g *gor, id int32, l, lim float64) step {
	if g.clock > s.now {
		if g.clock >= lim {
			return stYield
		}
		s.now = g.clock
	}
	lk := s.lock(id)
	if lk.waiters.len() > 0 || lk.releaseAt > s.now || s.flies(lk, g) {
		return stBlock
	}
	s.nLock++
	s.take(g, lk, l, 0, "", nil)
	return stCont
}

// walkFlat is walk for task frame f of flat run r: the same steps as
// walkNodes, with the lengths taken from r instead of from the task's
// nodes, which a large recording keeps far apart in memory. The sums are
// the nodes' own (each a single node's length times its count, exact
// below maxExact), so the clocks come out the same to the bit.
func (s *state) walkFlat(g *gor, f *frame, r *taskRun) step {
	i0 := f.i
	if f.i <= r.iL {
		lim := s.limit()
		if f.i < r.iL {
			g.clock += float64(r.preL) * s.burden
			f.i = r.iL
		}
		if st := s.walkL(g, r.lockID, float64(r.lenL)*s.burden, lim); st != stCont {
			s.step(int64(f.i-i0) + 1)
			return st
		}
		f.i++
	}
	if f.i < int(r.kids) {
		g.clock += float64(r.postL) * s.burden
		f.i++
	}
	s.step(int64(f.i-i0) + 1)
	return stCont
}

// walkNew walks new task frame f of g (see walk) for stepWorker. It
// reports whether the task is done; if not, stepWorker pushes f and
// returns st: stYield when g must yield, stCont when run's general loop
// must take f over.
func (s *state) walkNew(g *gor, f *frame) (done bool, st step) {
	if s.spans != nil || s.stepwise {
		return false, stCont
	}
	switch s.walk(g, f) {
	case stCont:
		return true, stCont
	case stYield:
		return false, stYield
	}
	// run's general loop need not walk f again first.
	f.walked = true
	return false, stCont
}
