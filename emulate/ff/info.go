package ff

import (
	"slices"
	"sort"

	"github.com/parallel-prophet/prophet/tree"
)

// taskRun is one run of identical tasks of a section: count consecutive
// expanded tasks starting at expanded index start.
type taskRun struct {
	node  *cnode
	count int64
	start int64
	// work is the task's serial length in ns (U and L, burden 1).
	work float64
	// preL and postL are the lengths of the U nodes before and after
	// the L of a oneL task, lenL the L's length, iL its index among the
	// task's children and lockID its lock (see state.batch); indexedL
	// says the L is an indexed critical section (tree.Node.Indexed).
	preL, lenL, postL int64
	iL                int
	lockID            int32 // the dense lock index
	indexedL          bool
	// oneL is true when the task is U nodes, one L node (Count 1), U
	// nodes.
	oneL bool
	// flat is set on a oneL task of at most one U node before its L
	// and one after, kids children in all: walkFlat runs it from the
	// lengths above without reading its nodes.
	flat bool
	kids uint8
	// pure is true when the task holds only U nodes: it interacts with
	// nothing, so any number of its instances can be run in one step.
	// (The small fields come last: a run takes 72 bytes, not 88.)
	pure bool
}

// secInfo is what the emulator precomputes about one section node.
//
// A dense section (only tasks, none a run: the common case of distinct
// iterations and of recursive sections) needs no table: task i is child
// i. Its secInfo lives in the section's team and is not cached.
type secInfo struct {
	dense bool
	node  *cnode
	runs  []taskRun
	// n is the number of expanded tasks.
	n int64
	// leadU is the section's own computation before its first task
	// (run serially by the encountering thread before the fork); midU
	// the rest of its own computation (run by worker 0 after the fork);
	// setupU its per-worker setup (see tree.Node.Setup), which every
	// worker runs before its first task.
	leadU, midU, setupU float64
}

// buildInfo precomputes the task runs of section sec of p into info
// (nil: a new one), reusing info's memory. compile checked the shape.
func buildInfo(p *prog, sec *cnode, info *secInfo) *secInfo {
	if info == nil {
		info = &secInfo{}
	}
	kids := p.kids(sec)
	// One allocation of the run table, not append's doublings: a
	// recorded loop of 10^8 tasks has hundreds of thousands of runs.
	tasks := 0
	for i := range kids {
		if kids[i].kind() == tree.KindTask {
			tasks++
		}
	}
	*info = secInfo{node: sec, runs: slices.Grow(info.runs[:0], tasks)}
	for i := range kids {
		c := &kids[i]
		switch c.kind() {
		case tree.KindU:
			w := float64(c.len()) * float64(c.count())
			if c.setup() {
				info.setupU += w
				continue
			}
			if info.n == 0 {
				info.leadU += w
			} else {
				info.midU += w
			}
		case tree.KindTask:
			r := taskRun{node: c, count: c.count(), start: info.n, pure: true}
			for _, x := range p.kids(c) {
				if x.kind() != tree.KindU || x.setup() {
					r.pure = false
				}
				if x.kind() == tree.KindU || x.kind() == tree.KindL {
					r.work += float64(x.len()) * float64(x.count())
				}
			}
			r.shapeOneL(p)
			info.runs = append(info.runs, r)
			info.n += r.count
		}
	}
	return info
}

// cursor is a position among a section's expanded tasks: task off of
// run run.
type cursor struct {
	run int
	off int64
}

// denseInfo fills info and reports true when sec is dense.
func denseInfo(sec *cnode, info *secInfo) bool {
	if !sec.dense() {
		return false
	}
	*info = secInfo{dense: true, node: sec, n: int64(sec.n())}
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

// seekFrom returns the cursor of expanded task i (i < info.n) like seek,
// starting from hint, a cursor at or before task i: a worker's next
// static chunk lies a few runs past its last one, and walking there
// touches far less memory than a binary search over every run of a large
// section. Any hint gives the right answer; one past i (or out of range)
// falls back to seek.
func (info *secInfo) seekFrom(hint cursor, i int64) cursor {
	if info.dense {
		return cursor{run: int(i)}
	}
	runs := info.runs
	r := hint.run
	if r < 0 || r >= len(runs) || runs[r].start > i {
		return info.seek(i)
	}
	// Run r starts at or before i: walk a few runs on (the caller
	// usually reads the run next); farther than that, search.
	for n := 0; r+1 < len(runs) && runs[r+1].start <= i; n++ {
		if n == seekWalk {
			return info.seek(i)
		}
		r++
	}
	return cursor{run: r, off: i - runs[r].start}
}

// seekWalk is how many runs seekFrom steps through one by one before it
// falls back to seek.
const seekWalk = 16

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
func (r *taskRun) shapeOneL(p *prog) {
	r.oneL, r.flat = false, false
	nL := 0
	var pre, post, l int64
	for i, x := range p.kids(r.node) {
		if x.len() < 0 || x.len() >= maxExact || x.count() >= 1<<20 {
			return
		}
		if x.setup() {
			return // once per worker: not the same in every task
		}
		switch x.kind() {
		case tree.KindU:
			if nL == 0 {
				pre += x.len() * x.count()
			} else {
				post += x.len() * x.count()
			}
		case tree.KindL:
			if nL > 0 || x.count() != 1 {
				return
			}
			nL++
			l = x.len()
			r.lockID, r.iL, r.indexedL = x.ref(), i, x.indexed()
		default:
			return
		}
		if pre >= maxExact || post >= maxExact {
			return
		}
	}
	if nL == 1 && pre+post+l < maxExact {
		r.oneL, r.preL, r.lenL, r.postL = true, pre, l, post
		if n := len(p.kids(r.node)); r.iL <= 1 && n-r.iL <= 2 {
			r.flat, r.kids = true, uint8(n)
		}
	}
}
