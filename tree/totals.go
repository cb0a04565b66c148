package tree

import (
	"math"
	"sort"
)

// Totals sums up a tree. Counts are of the expanded tree (runs expanded,
// shared nodes counted under every parent) unless said otherwise.
type Totals struct {
	// SerialNs is the total work: the sum of every U and L length.
	SerialNs int64 `json:"serial_ns"`
	// Tasks, Sections and Locks count Task, Sec and L nodes.
	Tasks    int64 `json:"tasks"`
	Sections int64 `json:"sections"`
	Locks    int64 `json:"locks"`
	// LockIDs lists the distinct lock ids, in increasing order.
	LockIDs []int `json:"lock_ids"`
	// TopSections counts the Sec nodes directly under the root.
	TopSections int64 `json:"top_sections"`
	// Nodes counts the distinct nodes of the compressed tree (root
	// included); ExpandedNodes counts the nodes of the expanded tree.
	Nodes         int64 `json:"nodes"`
	ExpandedNodes int64 `json:"expanded_nodes"`
	// MaxDepth is the number of edges on the longest path from the root.
	MaxDepth int `json:"max_depth"`
}

// sat returns a + b·c, saturating at math.MaxInt64.
func sat(a, b, c int64) int64 {
	if v, ok := mulAdd(a, b, c); ok {
		return v
	}
	return math.MaxInt64
}

type agg struct {
	work, tasks, secs, locks, nodes int64
	depth                           int
}

// Totals returns the totals of t; it takes time linear in the number of
// distinct nodes and edges (the compressed tree), not in the expanded tree.
// A nil tree has zero totals.
func (t *Tree) Totals() Totals {
	var out Totals
	if t == nil || t.Root == nil {
		return out
	}
	memo := make(map[*Node]*agg)
	locks := make(map[int]bool)
	var visit func(n *Node) *agg
	visit = func(n *Node) *agg {
		if a, ok := memo[n]; ok {
			return a
		}
		a := &agg{nodes: 1}
		memo[n] = a // a cycle (invalid tree) then reads a partial sum
		switch n.Kind {
		case KindU:
			a.work = n.Len
		case KindL:
			a.work = n.Len
			a.locks = 1
			locks[n.Lock] = true
		case KindTask:
			a.tasks = 1
		case KindSec:
			a.secs = 1
		}
		for _, c := range n.Children {
			if c == nil {
				continue
			}
			ca := visit(c)
			r := c.Reps()
			a.work = sat(a.work, ca.work, r)
			a.tasks = sat(a.tasks, ca.tasks, r)
			a.secs = sat(a.secs, ca.secs, r)
			a.locks = sat(a.locks, ca.locks, r)
			a.nodes = sat(a.nodes, ca.nodes, r)
			a.depth = max(a.depth, ca.depth+1)
		}
		return a
	}
	a := visit(t.Root)
	r := t.Root.Reps()
	out.SerialNs = sat(0, a.work, r)
	out.Tasks = sat(0, a.tasks, r)
	out.Sections = sat(0, a.secs, r)
	out.Locks = sat(0, a.locks, r)
	out.ExpandedNodes = sat(0, a.nodes, r)
	out.Nodes = int64(len(memo))
	out.MaxDepth = a.depth
	for _, c := range t.Root.Children {
		if c != nil && c.Kind == KindSec {
			out.TopSections = sat(out.TopSections, 1, c.Reps())
		}
	}
	out.LockIDs = make([]int, 0, len(locks))
	for id := range locks {
		out.LockIDs = append(out.LockIDs, id)
	}
	sort.Ints(out.LockIDs)
	return out
}
