package ff

import (
	"fmt"
	"math"
	"sync"

	"github.com/parallel-prophet/prophet/tree"
)

// cnode is the engine's compact copy of a tree.Node: 16 bytes, with the
// children of a node stored next to each other in prog.nodes. Walking a
// large tree is bound by memory traffic: a tree.Node takes 144 bytes
// and its children sit wherever the builder allocated them, while a
// task's U, L, U children here fit in one cache line. (Going from 32 to
// 64 bytes a node made BenchmarkNested about 40% slower.)
type cnode struct {
	// v is, for a U or L node, its length; for a Sec or Task node, its
	// children block prog.nodes[first : first+n], first in the low 32
	// bits and n in the high 32.
	v int64
	// cnt is the node's repetition count, 1 to maxCount (compile splits
	// a longer run into several nodes).
	cnt int32
	// meta holds the kind (bits 0-2), nowait (bit 3; on a U node:
	// setup, see tree.Node.Setup), dense (bit 4) and,
	// from bit 5, ref: for an L node its lock's index in prog.lockIDs,
	// for a Sec or Task node the source node's index in prog.src.
	meta uint32
}

// cnode meta bits.
const (
	metaKind   = 1<<3 - 1
	metaNowait = 1 << 3
	// metaSetup marks a U node of per-worker setup (the bit is
	// metaNowait's, which only a Sec uses).
	metaSetup = 1 << 3
	// metaDense is set on a Sec whose children are all tasks of Count
	// 1: task i is child i (see secInfo).
	metaDense = 1 << 4
	// metaIndexed marks an indexed critical section, an L node of
	// tree.Node.Indexed (the bit is metaDense's, which only a Sec
	// uses).
	metaIndexed = 1 << 4
	metaRef     = 5
	// maxRef bounds ref.
	maxRef = 1<<(32-metaRef) - 1
	// maxCount bounds a cnode's count.
	maxCount = math.MaxInt32
)

func (c *cnode) kind() tree.Kind { return tree.Kind(c.meta & metaKind) }
func (c *cnode) nowait() bool    { return c.meta&metaNowait != 0 }
func (c *cnode) dense() bool     { return c.meta&metaDense != 0 }
func (c *cnode) setup() bool     { return c.meta&(metaKind|metaSetup) == uint32(tree.KindU)|metaSetup }
func (c *cnode) indexed() bool {
	return c.meta&(metaKind|metaIndexed) == uint32(tree.KindL)|metaIndexed
}
func (c *cnode) ref() int32 { return int32(c.meta >> metaRef) }

// len returns a U or L node's length.
func (c *cnode) len() int64 { return c.v }

// count returns the node's repetition count.
func (c *cnode) count() int64 { return int64(c.cnt) }

// first and n place a Sec's or Task's children: prog.nodes[first :
// first+n].
func (c *cnode) first() int32 { return int32(uint32(c.v)) }
func (c *cnode) n() int32     { return int32(uint64(c.v) >> 32) }

// block returns the v of a Sec or Task node whose children are
// nodes[first : first+n].
func block(first, n int) int64 { return int64(uint64(uint32(n))<<32 | uint64(uint32(first))) }

// prog is the compact copy of one top-level section.
type prog struct {
	// nodes holds every node; nodes[0] is the section.
	nodes []cnode
	// src holds the source node of every Sec and Task (cnode.ref).
	src []*tree.Node
	// lockIDs maps the dense lock indices to the program's lock ids.
	lockIDs []int

	// infoMu guards infos, the section infos (buildInfo) of the
	// prog's sections that are not dense, each built on its first use
	// and then shared, read-only, by every emulation of the prog: a
	// recorded loop of 10^8 tasks has hundreds of thousands of runs, and
	// a sweep's concurrent emulations each built the table anew.
	infoMu sync.Mutex
	infos  map[*cnode]*secInfo

	// meanTask is the mean length (ns) of the recorded section's own
	// tasks, without a task call (see compileCalled), their work over
	// their count (0 with none): a spawned goroutine's start costs its
	// core machine.Overheads.SpawnRunFor of it.
	meanTask float64
}

// info returns the section info of section node n, which is not dense,
// building it on first use.
func (p *prog) info(n *cnode) *secInfo {
	p.infoMu.Lock()
	defer p.infoMu.Unlock()
	in, ok := p.infos[n]
	if !ok {
		if p.infos == nil {
			p.infos = map[*cnode]*secInfo{}
		}
		in = buildInfo(p, n, nil)
		p.infos[n] = in
	}
	return in
}

// root returns the section node.
func (p *prog) root() *cnode { return &p.nodes[0] }

// kids returns n's children.
func (p *prog) kids(n *cnode) []cnode {
	first := n.first()
	end := first + n.n()
	return p.nodes[first:end:end]
}

// name returns the name of Sec or Task node n.
func (p *prog) name(n *cnode) string {
	if n == nil || n.kind() == tree.KindU || n.kind() == tree.KindL {
		return ""
	}
	return p.src[n.ref()].Name
}

// compiler builds a prog.
type compiler struct {
	p *prog
	// shared holds the header of every shared node placed so far;
	// expanded the shared nodes whose subtrees are done.
	shared   map[*tree.Node]cnode
	expanded map[*tree.Node]bool
	locks    map[int]int32
}

// compile checks the shape of top-level section sec (sections hold
// tasks and U nodes, tasks hold U, L and Sec nodes, no nil child, no
// negative length) and returns its compact copy. Nodes the tree shares
// (tree.Node.Shared) are copied once.
//
// The layout is for the emulator's order of visits: a node's children
// block is followed by its inner children's blocks, then by their
// subtrees, so a section's tasks and the children of each lie together
// (a team's workers walk them at about the same time).
func compile(sec *tree.Node) (*prog, error) { return compileAs(sec, sec) }

// compileAs is compile of sec, its mean task (prog.meanTask) that of
// recorded, the section sec was made from (see compileCalled).
func compileAs(sec, recorded *tree.Node) (*prog, error) {
	if sec == nil {
		return nil, fmt.Errorf("nil section")
	}
	if sec.Kind != tree.KindSec {
		return nil, fmt.Errorf("%q: expected a Sec node, found a %s node", sec.Name, sec.Kind)
	}
	c := compiler{p: &prog{nodes: make([]cnode, 1, 1+len(sec.Children))},
		shared: map[*tree.Node]cnode{}, expanded: map[*tree.Node]bool{}, locks: map[int]int32{}}
	if err := c.place(sec, 0); err != nil {
		return nil, err
	}
	if err := c.expand(sec, 0); err != nil {
		return nil, err
	}
	c.p.meanTask = meanTask(recorded)
	return c.p, nil
}

// meanTask returns the mean length of the tasks directly under section
// sec, runs counted as their repetitions, or 0 if it has none.
func meanTask(sec *tree.Node) float64 {
	var m tree.WorkMemo
	var n, work float64
	for _, k := range sec.Children {
		if k.Kind == tree.KindTask {
			n += float64(k.Reps())
			work += float64(m.Work(k))
		}
	}
	if n == 0 {
		return 0
	}
	return work / n
}

// place sets nodes[at] to the header of Sec or Task node n (and the
// nodes after it to the further pieces of a run longer than maxCount)
// and gives n its children block, with its leaf children in it and its
// inner children's places (filled by expand). A shared node placed
// before gets the same header and block.
func (c *compiler) place(n *tree.Node, at int) error {
	if n.Shared() {
		if h, ok := c.shared[n]; ok {
			c.put(at, h, n.Reps())
			return nil
		}
	}
	p := c.p
	size := 0
	for _, ch := range n.Children {
		if ch == nil {
			return fmt.Errorf("%s %q: nil child", kindWord(n.Kind), n.Name)
		}
		size += pieces(ch)
	}
	if len(p.nodes)+size > math.MaxInt32 || len(p.src) > maxRef {
		return fmt.Errorf("section too large to emulate (more than %d nodes)", min(math.MaxInt32, maxRef))
	}
	meta := uint32(n.Kind) | uint32(len(p.src))<<metaRef
	if n.Nowait {
		meta |= metaNowait
	}
	dense := n.Kind == tree.KindSec
	first := len(p.nodes)
	p.src = grow(p.src, 1)
	p.src[len(p.src)-1] = n
	p.nodes = grow(p.nodes, size)
	pos := first
	for _, ch := range n.Children {
		if err := checkChild(n, ch); err != nil {
			return err
		}
		if ch.Kind != tree.KindTask || ch.Count > 1 {
			dense = false
		}
		if ch.Kind == tree.KindU || ch.Kind == tree.KindL {
			if ch.Len < 0 {
				return fmt.Errorf("%s %q: negative length %d", kindWord(n.Kind), n.Name, ch.Len)
			}
			k := cnode{v: ch.Len, meta: uint32(ch.Kind)}
			if ch.Setup && ch.Kind == tree.KindU {
				k.meta |= metaSetup
			}
			if ch.Kind == tree.KindL {
				i, err := c.lock(ch.Lock)
				if err != nil {
					return err
				}
				k.meta |= uint32(i) << metaRef
				if ch.Indexed {
					k.meta |= metaIndexed
				}
			}
			c.put(pos, k, ch.Reps())
		}
		pos += pieces(ch)
	}
	if dense {
		meta |= metaDense
	}
	h := cnode{v: block(first, size), meta: meta}
	c.put(at, h, n.Reps())
	if n.Shared() {
		c.shared[n] = h
	}
	return nil
}

// pieces returns the number of cnodes child n takes in its parent's
// block: one per maxCount of its repetitions.
func pieces(n *tree.Node) int {
	return int((n.Reps() + maxCount - 1) / maxCount)
}

// put writes h at nodes[at], with count reps, or, for a run longer than
// maxCount, at nodes[at], nodes[at+1], ..., one piece of the run each
// (the expanded tasks or nodes are the same).
func (c *compiler) put(at int, h cnode, reps int64) {
	for reps > 0 {
		k := min(reps, maxCount)
		h.cnt = int32(k)
		c.p.nodes[at] = h
		at++
		reps -= k
	}
}

// expand places the inner children of n (placed at at), then expands
// each of them.
func (c *compiler) expand(n *tree.Node, at int) error {
	first := int(c.p.nodes[at].first())
	pos := first
	for _, ch := range n.Children {
		if !ch.Kind.IsLeaf() {
			if err := c.place(ch, pos); err != nil {
				return err
			}
		}
		pos += pieces(ch)
	}
	pos = first
	for _, ch := range n.Children {
		at := pos
		pos += pieces(ch)
		if ch.Kind.IsLeaf() {
			continue
		}
		if ch.Shared() {
			if c.expanded[ch] {
				continue
			}
			c.expanded[ch] = true
		}
		if err := c.expand(ch, at); err != nil {
			return err
		}
	}
	return nil
}

// grow extends s by k zero elements, doubling its capacity when it must
// grow (append grows large slices by a quarter at a time, which for a
// copy of millions of nodes moves them about five times over).
func grow[T any](s []T, k int) []T {
	n := len(s) + k
	if n > cap(s) {
		ns := make([]T, len(s), max(2*cap(s), n, 64))
		copy(ns, s)
		s = ns
	}
	s = s[:n]
	clear(s[n-k:])
	return s
}

// lock returns the dense index of lock id.
func (c *compiler) lock(id int) (int32, error) {
	if i, ok := c.locks[id]; ok {
		return i, nil
	}
	if len(c.p.lockIDs) > maxRef {
		return 0, fmt.Errorf("section too large to emulate (more than %d lock ids)", maxRef)
	}
	i := int32(len(c.p.lockIDs))
	c.locks[id] = i
	c.p.lockIDs = append(c.p.lockIDs, id)
	return i, nil
}

// checkChild checks that ch may be a child of n.
func checkChild(n, ch *tree.Node) error {
	switch n.Kind {
	case tree.KindSec:
		if ch.Kind != tree.KindTask && ch.Kind != tree.KindU {
			return fmt.Errorf("section %q holds a %s node; sections hold tasks and U nodes", n.Name, ch.Kind)
		}
	case tree.KindTask:
		if ch.Kind != tree.KindU && ch.Kind != tree.KindL && ch.Kind != tree.KindSec {
			return fmt.Errorf("task %q holds a %s node; tasks hold U, L and Sec nodes", n.Name, ch.Kind)
		}
	}
	return nil
}

func kindWord(k tree.Kind) string {
	if k == tree.KindSec {
		return "section"
	}
	return "task"
}

// progCache remembers the compact copies of the sections an Emulator
// (and its clones) emulated, up to maxCachedNodes nodes in all: one per
// section and task call cost (see calledFrom).
type progCache struct {
	mu    sync.Mutex
	m     map[progKey]*progEntry
	nodes int
}

// progKey names a compact copy: the section, and the call cost added to
// each of its tasks.
type progKey struct {
	sec  *tree.Node
	call int64
}

type progEntry struct {
	once sync.Once
	p    *prog
	err  error
}

// maxCachedNodes bounds the nodes a progCache holds (16 bytes each; a
// section's run table, built once it is emulated, adds 72 bytes for each
// of its task children).
const maxCachedNodes = 1 << 23

// get returns the compact copy of sec with call ns added at the start of
// each of its tasks (calledFrom), compiling it on first use.
func (c *progCache) get(sec *tree.Node, call int64) (*prog, error) {
	if c == nil {
		return compileCalled(sec, call)
	}
	k := progKey{sec, call}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[progKey]*progEntry{}
	}
	e, ok := c.m[k]
	if !ok {
		e = &progEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	fresh := false
	e.once.Do(func() {
		e.p, e.err = compileCalled(sec, call)
		fresh = true
	})
	if fresh {
		c.mu.Lock()
		n := 0
		if e.p != nil {
			n = len(e.p.nodes)
		}
		switch {
		case e.err != nil || n > maxCachedNodes:
			delete(c.m, k)
		case c.nodes+n > maxCachedNodes:
			clear(c.m)
			c.m[k], c.nodes = e, n
		default:
			c.nodes += n
		}
		c.mu.Unlock()
	}
	return e.p, e.err
}
