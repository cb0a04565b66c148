package ff

import (
	"fmt"
	"math"
	"sync"

	"github.com/parallel-prophet/prophet/tree"
)

// cnode is the engine's compact copy of a tree.Node: 32 bytes, with the
// children of a node stored next to each other in prog.nodes. Walking a
// large tree is bound by memory traffic: a tree.Node takes 144 bytes
// and its children sit wherever the builder allocated them, while a
// task's U, L, U children here share two cache lines.
type cnode struct {
	kind   tree.Kind
	nowait bool
	// dense is set on a Sec whose children are all tasks of Count 1:
	// task i is child i (see secInfo).
	dense bool
	// ref is, for an L node, its lock's index in prog.lockIDs; for a Sec
	// or Task node, the source node's index in prog.src (for names).
	ref int32
	// len is the length of a U or L node.
	len int64
	// count is the node's repetition count, at least 1.
	count int64
	// first and n place a Sec's or Task's children:
	// prog.nodes[first : first+n].
	first, n int32
}

// prog is the compact copy of one top-level section.
type prog struct {
	// nodes holds every node; nodes[0] is the section.
	nodes []cnode
	// src holds the source node of every Sec and Task (cnode.ref).
	src []*tree.Node
	// lockIDs maps the dense lock indices to the program's lock ids.
	lockIDs []int
}

// root returns the section node.
func (p *prog) root() *cnode { return &p.nodes[0] }

// kids returns n's children.
func (p *prog) kids(n *cnode) []cnode {
	return p.nodes[n.first : n.first+n.n : n.first+n.n]
}

// name returns the name of Sec or Task node n.
func (p *prog) name(n *cnode) string {
	if n == nil || n.kind == tree.KindU || n.kind == tree.KindL {
		return ""
	}
	return p.src[n.ref].Name
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
func compile(sec *tree.Node) (*prog, error) {
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
	return c.p, nil
}

// place sets nodes[at] to the header of Sec or Task node n and gives n
// its children block, with its leaf children in it and its inner
// children's places (filled by expand). A shared node placed before
// gets the same header and block.
func (c *compiler) place(n *tree.Node, at int) error {
	if n.Shared() {
		if h, ok := c.shared[n]; ok {
			c.p.nodes[at] = h
			return nil
		}
	}
	p := c.p
	if len(p.nodes)+len(n.Children) > math.MaxInt32 || len(p.src) >= math.MaxInt32 {
		return fmt.Errorf("section too large to emulate (more than %d nodes)", math.MaxInt32)
	}
	h := cnode{kind: n.Kind, nowait: n.Nowait, ref: int32(len(p.src)), count: n.Reps(),
		first: int32(len(p.nodes)), n: int32(len(n.Children)), dense: n.Kind == tree.KindSec}
	p.src = grow(p.src, 1)
	p.src[len(p.src)-1] = n
	p.nodes = grow(p.nodes, len(n.Children))
	for i, ch := range n.Children {
		if ch == nil {
			return fmt.Errorf("%s %q: nil child", kindWord(n.Kind), n.Name)
		}
		if err := checkChild(n, ch); err != nil {
			return err
		}
		if ch.Kind != tree.KindTask || ch.Count > 1 {
			h.dense = false
		}
		if ch.Kind == tree.KindU || ch.Kind == tree.KindL {
			if ch.Len < 0 {
				return fmt.Errorf("%s %q: negative length %d", kindWord(n.Kind), n.Name, ch.Len)
			}
			k := cnode{kind: ch.Kind, len: ch.Len, count: ch.Reps()}
			if ch.Kind == tree.KindL {
				k.ref = c.lock(ch.Lock)
			}
			p.nodes[int(h.first)+i] = k
		}
	}
	p.nodes[at] = h
	if n.Shared() {
		c.shared[n] = h
	}
	return nil
}

// expand places the inner children of n (placed at at), then expands
// each of them.
func (c *compiler) expand(n *tree.Node, at int) error {
	first := int(c.p.nodes[at].first)
	for i, ch := range n.Children {
		if !ch.Kind.IsLeaf() {
			if err := c.place(ch, first+i); err != nil {
				return err
			}
		}
	}
	for i, ch := range n.Children {
		if ch.Kind.IsLeaf() {
			continue
		}
		if ch.Shared() {
			if c.expanded[ch] {
				continue
			}
			c.expanded[ch] = true
		}
		if err := c.expand(ch, first+i); err != nil {
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
func (c *compiler) lock(id int) int32 {
	if i, ok := c.locks[id]; ok {
		return i
	}
	i := int32(len(c.p.lockIDs))
	c.locks[id] = i
	c.p.lockIDs = append(c.p.lockIDs, id)
	return i
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
// (and its clones) emulated, up to maxCachedNodes nodes in all.
type progCache struct {
	mu    sync.Mutex
	m     map[*tree.Node]*progEntry
	nodes int
}

type progEntry struct {
	once sync.Once
	p    *prog
	err  error
}

// maxCachedNodes bounds the nodes a progCache holds (32 bytes each).
const maxCachedNodes = 1 << 23

// get returns sec's compact copy, compiling it on first use.
func (c *progCache) get(sec *tree.Node) (*prog, error) {
	if c == nil {
		return compile(sec)
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[*tree.Node]*progEntry{}
	}
	e, ok := c.m[sec]
	if !ok {
		e = &progEntry{}
		c.m[sec] = e
	}
	c.mu.Unlock()
	fresh := false
	e.once.Do(func() {
		e.p, e.err = compile(sec)
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
			delete(c.m, sec)
		case c.nodes+n > maxCachedNodes:
			clear(c.m)
			c.m[sec], c.nodes = e, n
		default:
			c.nodes += n
		}
		c.mu.Unlock()
	}
	return e.p, e.err
}
