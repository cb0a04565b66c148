package tree

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("invalid tree")

// Validate checks the structure of t: a Root at the top and nowhere else;
// the root holds U, L and Sec nodes; a Sec holds Task, U and L nodes; a
// Task holds U, L and Sec nodes; leaves have no children; no node is nil;
// Count ≥ 0 (0 reads as 1) and lengths ≥ 0; no cycle; and the expanded
// tree's work and node count fit in an int64. It runs in time linear in
// the number of distinct nodes and edges.
func Validate(t *Tree) error {
	if t == nil || t.Root == nil {
		return fmt.Errorf("%w: no root", ErrInvalid)
	}
	if t.Root.Kind != KindRoot {
		return fmt.Errorf("%w: the top node is a %s, not a Root", ErrInvalid, t.Root.Kind)
	}
	if t.Root.Reps() != 1 {
		return fmt.Errorf("%w: the root repeats %d times", ErrInvalid, t.Root.Count)
	}
	if t.Meta.Probe != nil {
		if err := t.Meta.Probe.check(); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	v := validator{state: make(map[*Node]*vstate)}
	_, err := v.node(t.Root, nil)
	return err
}

type vstate struct {
	done  bool
	work  int64 // expanded work of one instance
	nodes int64 // expanded nodes of one instance (itself included)
}

type validator struct {
	state map[*Node]*vstate
	path  []int // child indexes from the root to the node being checked
}

// where names the node being checked, as child indexes from the root.
func (v *validator) where() string {
	b := []byte("Root")
	for _, i := range v.path {
		b = fmt.Appendf(b, "/%d", i)
	}
	return string(b)
}

func allowed(parent, child Kind) bool {
	switch parent {
	case KindRoot:
		return child == KindU || child == KindL || child == KindSec
	case KindSec:
		return child == KindTask || child == KindU || child == KindL
	case KindTask:
		return child == KindU || child == KindL || child == KindSec
	}
	return false
}

// mulAdd returns a + b·c, or false when it overflows or is negative.
func mulAdd(a, b, c int64) (int64, bool) {
	if b < 0 || c < 0 || a < 0 {
		return 0, false
	}
	if c != 0 && b > (math.MaxInt64-a)/c {
		return 0, false
	}
	return a + b*c, true
}

func (v *validator) node(n, parent *Node) (*vstate, error) {
	if n == nil {
		return nil, fmt.Errorf("%w: node %s: nil child", ErrInvalid, v.where())
	}
	if s, ok := v.state[n]; ok {
		if !s.done {
			return nil, fmt.Errorf("%w: node %s: cycle", ErrInvalid, v.where())
		}
		return s, nil
	}
	if n.Kind > KindL {
		return nil, fmt.Errorf("%w: node %s: unknown node kind %d", ErrInvalid, v.where(), uint8(n.Kind))
	}
	if parent != nil && !allowed(parent.Kind, n.Kind) {
		return nil, fmt.Errorf("%w: node %s: a %s cannot hold a %s", ErrInvalid, v.where(), parent.Kind, n.Kind)
	}
	if n.Count < 0 {
		return nil, fmt.Errorf("%w: node %s: count %d is negative", ErrInvalid, v.where(), n.Count)
	}
	if n.Setup && n.Kind != KindU {
		return nil, fmt.Errorf("%w: node %s: only a U node can be setup, not a node of kind %s", ErrInvalid, v.where(), n.Kind)
	}
	if n.Indexed && n.Kind != KindL {
		return nil, fmt.Errorf("%w: node %s: only an L node can be indexed, not a node of kind %s", ErrInvalid, v.where(), n.Kind)
	}
	s := &vstate{}
	v.state[n] = s
	if n.Kind.IsLeaf() {
		if len(n.Children) > 0 {
			return nil, fmt.Errorf("%w: node %s: a %s node has children", ErrInvalid, v.where(), n.Kind)
		}
		if n.Len < 0 {
			return nil, fmt.Errorf("%w: node %s: negative length %d", ErrInvalid, v.where(), n.Len)
		}
		s.work, s.nodes = n.Len, 1
	} else {
		if n.Len != 0 {
			return nil, fmt.Errorf("%w: node %s: a %s node has a length", ErrInvalid, v.where(), n.Kind)
		}
		s.nodes = 1
		for i, c := range n.Children {
			v.path = append(v.path, i)
			cs, err := v.node(c, n)
			if err != nil {
				return nil, err
			}
			v.path = v.path[:len(v.path)-1]
			var ok1, ok2 bool
			s.work, ok1 = mulAdd(s.work, cs.work, c.Reps())
			s.nodes, ok2 = mulAdd(s.nodes, cs.nodes, c.Reps())
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%w: node %s: the expanded tree is too large (counts overflow)", ErrInvalid, v.where())
			}
		}
	}
	s.done = true
	return s, nil
}
