package tree

// Work returns the serial time in nanoseconds of n and everything below
// it, all of n's Count repetitions included: the sum of every U and L
// length in the expanded tree.
func Work(n *Node) int64 {
	if n == nil {
		return 0
	}
	if n.Kind.IsLeaf() {
		return n.Len * n.Reps()
	}
	var w int64
	for _, c := range n.Children {
		w += Work(c)
	}
	return w * n.Reps()
}
