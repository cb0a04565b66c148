package ff

import "github.com/parallel-prophet/prophet/tree"

// called returns sec with a U leaf of ns nanoseconds at the start of
// every task in it, its nested sections' tasks included: what a
// worksharing loop adds to each task by calling the loop body through a
// function value where the serial loop runs it inline
// (machine.Overheads.TaskCallNs). Where ns < 1 it returns sec itself.
// The copy shares what sec shares (a node with several parents is
// copied once), so that runs of identical tasks stay runs and the
// compact copy (compile) stays as small as sec's.
func called(sec *tree.Node, ns int64) *tree.Node {
	if ns < 1 || sec == nil {
		return sec
	}
	memo := map[*tree.Node]*tree.Node{}
	var cp func(n *tree.Node) *tree.Node
	cp = func(n *tree.Node) *tree.Node {
		if n.Kind == tree.KindU || n.Kind == tree.KindL {
			return n
		}
		if c, ok := memo[n]; ok {
			return c
		}
		c := *n
		c.Children = make([]*tree.Node, 0, len(n.Children)+1)
		if n.Kind == tree.KindTask {
			c.Children = append(c.Children, tree.U(ns))
		}
		for _, k := range n.Children {
			c.Children = append(c.Children, cp(k))
		}
		memo[n] = &c
		return &c
	}
	return cp(sec)
}
