package ff

import "github.com/parallel-prophet/prophet/tree"

// compileCalled compiles calledFrom(sec, ns), its source nodes (prog.src,
// which name the sections and tasks) those of sec, so that the copy does
// not stay alive beside the section it was made from, and its mean task
// sec's: a spawned goroutine's start is charged for the recorded task
// (see Emulator.section).
func compileCalled(sec *tree.Node, ns int64) (*prog, error) {
	c, from := calledFrom(sec, ns)
	p, err := compileAs(c, sec)
	if err != nil || from == nil {
		return p, err
	}
	for i, n := range p.src {
		if o, ok := from[n]; ok {
			p.src[i] = o
		}
	}
	return p, nil
}

// calledFrom returns sec with ns nanoseconds added at the start of
// every task in it, its nested sections' tasks included: what a
// worksharing loop adds to each task by calling the loop body through a
// function value where the serial loop runs it inline
// (machine.Overheads.TaskCallNs). The cost goes into the task's first
// leaf where that is a single U of its work (the call runs right before
// it, with nothing between them that another worker could see), else
// into a U of its own before the task's first child, so that the copy
// has no more nodes to walk than sec. The copy shares what sec shares (a
// node with several parents is copied once), so that runs of identical
// tasks stay runs and the compact copy stays as small as sec's. It also
// returns the node of sec that each copied section and task was made
// from. Where ns < 1 it returns sec itself and no map.
func calledFrom(sec *tree.Node, ns int64) (*tree.Node, map[*tree.Node]*tree.Node) {
	if ns < 1 || sec == nil {
		return sec, nil
	}
	memo := map[*tree.Node]*tree.Node{}
	from := map[*tree.Node]*tree.Node{}
	firsts := map[*tree.Node]*tree.Node{} // a task's first U, lengthened
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
		kids := n.Children
		if n.Kind == tree.KindTask {
			if k := first(kids); k != nil {
				u, ok := firsts[k]
				if !ok {
					v := *k
					v.Len += ns
					u = &v
					firsts[k] = u
				}
				c.Children = append(c.Children, u)
				kids = kids[1:]
			} else {
				c.Children = append(c.Children, tree.U(ns))
			}
		}
		for _, k := range kids {
			c.Children = append(c.Children, cp(k))
		}
		memo[n], from[&c] = &c, n
		return &c
	}
	return cp(sec), from
}

// first returns a task's first child where it is one U leaf of the
// task's work (not repeated, not per-worker setup), else nil.
func first(kids []*tree.Node) *tree.Node {
	if len(kids) == 0 {
		return nil
	}
	if k := kids[0]; k.Kind == tree.KindU && !k.Setup && k.Count == 1 {
		return k
	}
	return nil
}
