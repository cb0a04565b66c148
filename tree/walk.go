package tree

// Walk calls fn for n and, depth first in program order, for every node
// below it, once per parent edge: a run (Count > 1) is visited once, not
// expanded, and a node shared by several parents is visited under each of
// them. depth is 0 for n. When fn returns false, the node's children are
// skipped. Walk does nothing for a nil n.
func Walk(n *Node, fn func(n *Node, depth int) bool) {
	if n != nil {
		walk(n, 0, fn)
	}
}

func walk(n *Node, depth int, fn func(*Node, int) bool) {
	if !fn(n, depth) {
		return
	}
	for _, c := range n.Children {
		walk(c, depth+1, fn)
	}
}

// Distinct calls fn once for every distinct node (by pointer) of the tree
// below n, n included, children before their parents. It takes time linear
// in the number of distinct nodes and edges.
func Distinct(n *Node, fn func(n *Node)) {
	if n == nil {
		return
	}
	seen := make(map[*Node]bool)
	var visit func(*Node)
	visit = func(n *Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, c := range n.Children {
			visit(c)
		}
		fn(n)
	}
	visit(n)
}
