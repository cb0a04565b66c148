package ff

import (
	"fmt"
	"sort"

	"github.com/parallel-prophet/prophet/tree"
)

// taskRun is one run of identical tasks of a section: count consecutive
// expanded tasks starting at expanded index start.
type taskRun struct {
	node  *tree.Node
	count int64
	start int64
	// pure is true when the task holds only U nodes: it interacts with
	// nothing, so any number of its instances can be run in one step.
	pure bool
	// work is the task's serial length in ns (U and L, burden 1).
	work float64
	// oneL is true when the task is U nodes, one L node (Count 1), U
	// nodes: then preL and postL are the lengths of the U nodes before
	// and after the L, lenL the L's length and lockID its lock (see
	// state.batch).
	oneL              bool
	preL, lenL, postL int64
	lockID            int
	// iL is the index of the L node among the task's children.
	iL int
}

// secInfo is what the emulator precomputes about one section node.
//
// A dense section (only tasks, none a run: the common case of distinct
// iterations and of recursive sections) needs no table: task i is child
// i. Its secInfo lives in the section's team and is not cached.
type secInfo struct {
	dense bool
	node  *tree.Node
	runs  []taskRun
	// n is the number of expanded tasks.
	n int64
	// leadU is the section's own computation before its first task
	// (run serially by the encountering thread before the fork); midU
	// the rest of its own computation (run by worker 0 after the fork).
	leadU, midU float64
}

// buildInfo checks sec's shape and precomputes its task runs into info
// (nil: a new one), reusing info's memory.
func buildInfo(sec *tree.Node, info *secInfo) (*secInfo, error) {
	if sec.Kind != tree.KindSec {
		return nil, fmt.Errorf("expected a section, found a %s node", sec.Kind)
	}
	if info == nil {
		info = &secInfo{}
	}
	*info = secInfo{runs: info.runs[:0]}
	for _, c := range sec.Children {
		if c == nil {
			return nil, fmt.Errorf("section %q: nil child", sec.Name)
		}
		switch c.Kind {
		case tree.KindU:
			w := float64(c.Len) * float64(c.Reps())
			if info.n == 0 {
				info.leadU += w
			} else {
				info.midU += w
			}
		case tree.KindTask:
			r := taskRun{node: c, count: c.Reps(), start: info.n, pure: true}
			for _, x := range c.Children {
				if x == nil {
					return nil, fmt.Errorf("task %q: nil child", c.Name)
				}
				switch x.Kind {
				case tree.KindU:
				case tree.KindL:
					r.pure = false
				case tree.KindSec:
					r.pure = false
					// Its shape is checked when it runs.
				default:
					return nil, fmt.Errorf("task %q holds a %s node; tasks hold U, L and Sec nodes", c.Name, x.Kind)
				}
				if x.Kind.IsLeaf() {
					if x.Len < 0 {
						return nil, fmt.Errorf("task %q: negative length %d", c.Name, x.Len)
					}
					r.work += float64(x.Len) * float64(x.Reps())
				}
			}
			r.shapeOneL()
			info.runs = append(info.runs, r)
			info.n += r.count
		default:
			return nil, fmt.Errorf("section %q holds a %s node; sections hold tasks and U nodes", sec.Name, c.Kind)
		}
	}
	return info, nil
}

// cursor is a position among a section's expanded tasks: task off of
// run run.
type cursor struct {
	run int
	off int64
}

// denseInfo fills info and reports true when sec is dense.
func denseInfo(sec *tree.Node, info *secInfo) bool {
	if sec.Kind != tree.KindSec {
		return false
	}
	for _, c := range sec.Children {
		if c == nil || c.Kind != tree.KindTask || c.Count > 1 {
			return false
		}
	}
	*info = secInfo{dense: true, node: sec, n: int64(len(sec.Children))}
	return true
}

// seek returns the cursor of expanded task i (i < info.n).
func (info *secInfo) seek(i int64) cursor {
	if info.dense {
		return cursor{run: int(i)}
	}
	r := sort.Search(len(info.runs), func(k int) bool { return info.runs[k].start > i }) - 1
	return cursor{run: r, off: i - info.runs[r].start}
}

// advance moves c forward by m tasks.
func (info *secInfo) advance(c *cursor, m int64) {
	if info.dense {
		c.run += int(m)
		return
	}
	c.off += m
	for c.run < len(info.runs) && c.off >= info.runs[c.run].count {
		c.off -= info.runs[c.run].count
		c.run++
	}
}

// shapeOneL sets r.oneL and its lengths when r's task is U nodes, one L
// node and U nodes, with sums small enough to stay exact.
func (r *taskRun) shapeOneL() {
	r.oneL = false
	nL := 0
	var pre, post, l int64
	for i, x := range r.node.Children {
		if x.Len < 0 || x.Len >= maxExact || x.Reps() >= 1<<20 {
			return
		}
		switch x.Kind {
		case tree.KindU:
			if nL == 0 {
				pre += x.Len * x.Reps()
			} else {
				post += x.Len * x.Reps()
			}
		case tree.KindL:
			if nL > 0 || x.Reps() != 1 {
				return
			}
			nL++
			l = x.Len
			r.lockID, r.iL = x.Lock, i
		default:
			return
		}
		if pre >= maxExact || post >= maxExact {
			return
		}
	}
	if nL == 1 && pre+post+l < maxExact {
		r.oneL, r.preL, r.lenL, r.postL = true, pre, l, post
	}
}
