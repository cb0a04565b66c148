package tree

// Work returns the serial time in nanoseconds of n and everything below
// it, all of n's Count repetitions included: the sum of every U and L
// length in the expanded tree. It takes time linear in the compressed
// tree: nodes the builder's dictionary or a file shares are summed once.
func Work(n *Node) int64 {
	var m WorkMemo
	return m.Work(n)
}

// WorkMemo computes Work for many nodes of one tree, summing every node
// the builder's dictionary or a file shares once over all the calls
// (Work does so within one call). The zero value is ready to use. A
// WorkMemo must not be used after the tree changes, nor from two
// goroutines at once.
type WorkMemo struct {
	memo map[*Node]int64
}

// Work returns Work(n), reusing the sums of earlier calls.
func (m *WorkMemo) Work(n *Node) int64 {
	if n == nil {
		return 0
	}
	return work(n, &m.memo) * n.Reps()
}

// work returns the work of one instance of n.
func work(n *Node, memo *map[*Node]int64) int64 {
	if n.Kind.IsLeaf() {
		return n.Len
	}
	if n.id != 0 {
		if w, ok := (*memo)[n]; ok {
			return w
		}
	}
	var w int64
	for _, c := range n.Children {
		if c.Kind.IsLeaf() {
			w += c.Len * c.Reps()
			continue
		}
		w += work(c, memo) * c.Reps()
	}
	if n.id != 0 {
		if *memo == nil {
			*memo = make(map[*Node]int64)
		}
		(*memo)[n] = w
	}
	return w
}
