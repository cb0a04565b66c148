package tree

import "math"

// Scaled returns a copy of n whose U and L lengths are f times n's,
// rounded to the nanosecond, leaving n and everything it shares with the
// rest of its tree untouched. Where n's subtree shares a node (Shared),
// the copy shares that node's copy: a compressed subtree stays
// compressed. Hardware counters are copied as they are, their time
// included, since they were counted over the run as it ran. A memory
// probe uses it to take out of a recording the slowdown that its own
// bandits caused in the runs they streamed beside.
func Scaled(n *Node, f float64) *Node {
	memo := map[*Node]*Node{}
	var cp func(*Node) *Node
	cp = func(x *Node) *Node {
		if c, ok := memo[x]; ok {
			return c
		}
		c := *x
		c.acc = nil
		if x.Kind.IsLeaf() {
			c.Len = int64(math.Round(float64(x.Len) * f))
			c.sum, c.inst = 0, 0
		}
		if x.Counters != nil {
			cs := *x.Counters
			c.Counters = &cs
		}
		if len(x.Children) > 0 {
			c.Children = make([]*Node, len(x.Children))
			for i, ch := range x.Children {
				c.Children[i] = cp(ch)
			}
		}
		if x.Shared() {
			memo[x] = &c
		}
		return &c
	}
	return cp(n)
}
