package tree

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TextOptions tune WriteText.
type TextOptions struct {
	// MaxDepth is the deepest level printed below the root (the root's
	// children are level 1); 0 prints every level.
	MaxDepth int
	// MaxChildren is how many children of one node are printed before the
	// rest are summed up in one line ("… 1234 more tasks"); 0 means 20 and
	// a negative value prints all of them.
	MaxChildren int
	// MaxLines bounds the node lines printed in all; 0 means
	// DefaultMaxLines and a negative value prints every line. Subtrees
	// shared through the dictionary print under each parent, so a small
	// profile can otherwise print without end.
	MaxLines int
}

// DefaultMaxLines is TextOptions.MaxLines's default.
const DefaultMaxLines = 2000

// MaxJSONNodes bounds the nodes JSON writes; deeper ones are left out
// and counted in View.LeftOut.
const MaxJSONNodes = 20_000

// FormatNs formats a duration in nanoseconds with three significant
// digits in ns, µs, ms or s.
func FormatNs(ns int64) string {
	f := float64(ns)
	a := f
	if a < 0 {
		a = -a
	}
	unit, div := "s", 1e9
	switch {
	case a < 1e3:
		return fmt.Sprintf("%d ns", ns)
	case a < 1e6:
		unit, div = "µs", 1e3
	case a < 1e9:
		unit, div = "ms", 1e6
	}
	v := f / div
	switch av := a / div; {
	case av < 10:
		return fmt.Sprintf("%.2f %s", v, unit)
	case av < 100:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

// WriteText writes t for people: one line per node, indented by depth,
// runs as "×N", lengths in human units, task counts and work of sections
// and tasks (per instance), counters where present, long child lists cut
// short, and the totals at the end.
func WriteText(w io.Writer, t *Tree, opt TextOptions) error {
	if t == nil || t.Root == nil {
		return fmt.Errorf("writing tree: no tree")
	}
	if opt.MaxChildren == 0 {
		opt.MaxChildren = 20
	}
	if opt.MaxLines == 0 {
		opt.MaxLines = DefaultMaxLines
	}
	lines, cut := 0, false
	bw := bufio.NewWriter(w)
	tot := t.Totals()
	sum := newSummer()
	fmt.Fprintf(bw, "Root  serial %s, %d tasks, %d sections, %d locks\n",
		FormatNs(tot.SerialNs), tot.Tasks, tot.Sections, tot.Locks)
	var node func(n *Node, depth int)
	node = func(n *Node, depth int) {
		if opt.MaxDepth > 0 && depth > opt.MaxDepth || cut {
			return
		}
		if opt.MaxLines > 0 && lines >= opt.MaxLines {
			cut = true
			return
		}
		lines++
		ind := strings.Repeat("  ", depth)
		fmt.Fprintf(bw, "%s%s\n", ind, describe(n, sum))
		if len(n.Children) == 0 {
			return
		}
		if opt.MaxDepth > 0 && depth+1 > opt.MaxDepth {
			fmt.Fprintf(bw, "%s  … %s below\n", ind, plural(len(n.Children), "child node", "child nodes"))
			return
		}
		shown := n.Children
		if opt.MaxChildren > 0 && len(shown) > opt.MaxChildren {
			shown = shown[:opt.MaxChildren]
		}
		for _, c := range shown {
			node(c, depth+1)
		}
		if rest := n.Children[len(shown):]; len(rest) > 0 {
			fmt.Fprintf(bw, "%s  … %s\n", ind, summarize(rest, sum))
		}
	}
	top := t.Root.Children
	if opt.MaxChildren > 0 && len(top) > opt.MaxChildren {
		top = top[:opt.MaxChildren]
	}
	for _, c := range top {
		node(c, 1)
	}
	if rest := t.Root.Children[len(top):]; len(rest) > 0 {
		fmt.Fprintf(bw, "  … %s\n", summarize(rest, sum))
	}
	if cut {
		fmt.Fprintf(bw, "… stopped after %d lines (--depth and --children narrow what is shown)\n", opt.MaxLines)
	}
	fmt.Fprintf(bw, "totals: serial %s", FormatNs(tot.SerialNs))
	if m := t.Meta.MeasuredNs; m > 0 {
		fmt.Fprintf(bw, " (measured %s, %+.2f%%)", FormatNs(m), 100*float64(tot.SerialNs-m)/float64(m))
	}
	if p := t.Meta.PausedNs; p > 0 {
		fmt.Fprintf(bw, ", paused %s (left out)", FormatNs(p))
	}
	fmt.Fprintf(bw, ", %d tasks, %d sections (%d top-level), %d locks", tot.Tasks, tot.Sections, tot.TopSections, tot.Locks)
	if len(tot.LockIDs) > 0 {
		fmt.Fprintf(bw, " (ids %s)", FormatIDs(tot.LockIDs))
	}
	fmt.Fprintf(bw, ", %d distinct nodes of %d expanded, depth %d\n", tot.Nodes, tot.ExpandedNodes, tot.MaxDepth)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing tree: %w", err)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// summer memoizes per-instance work and task counts of shared nodes.
type summer struct {
	memo  map[*Node]int64
	tasks map[*Node]int64
	views map[*Node]int64 // JSON nodes below and including a node
}

func newSummer() *summer {
	return &summer{tasks: make(map[*Node]int64), views: make(map[*Node]int64)}
}

// nodes returns how many NodeViews JSON would write for n: n and each of
// its children's, a shared child under each parent.
func (s *summer) nodes(n *Node) int64 {
	if v, ok := s.views[n]; ok {
		return v
	}
	k := int64(1)
	for _, c := range n.Children {
		k = sat(k, s.nodes(c), 1)
	}
	s.views[n] = k
	return k
}

func (s *summer) work(n *Node) int64 { return work(n, &s.memo) }

// taskCount returns the expanded tasks below one instance of n (n itself
// not counted).
func (s *summer) taskCount(n *Node) int64 {
	if v, ok := s.tasks[n]; ok {
		return v
	}
	var k int64
	for _, c := range n.Children {
		v := s.taskCount(c)
		if c.Kind == KindTask {
			v = sat(v, 1, 1)
		}
		k = sat(k, v, c.Reps())
	}
	s.tasks[n] = k
	return k
}

func describe(n *Node, s *summer) string {
	var b strings.Builder
	b.WriteString(n.Kind.String())
	if n.Name != "" {
		fmt.Fprintf(&b, " %q", n.Name)
	}
	if n.Kind == KindL {
		fmt.Fprintf(&b, " lock %d", n.Lock)
		if n.Indexed {
			b.WriteString(" indexed")
		}
	}
	if n.Setup {
		b.WriteString(" setup (once per worker)")
	}
	if n.Reps() > 1 {
		fmt.Fprintf(&b, " ×%d", n.Reps())
	}
	each := ""
	if n.Reps() > 1 {
		each = " each"
	}
	switch n.Kind {
	case KindU, KindL:
		fmt.Fprintf(&b, "  %s%s", FormatNs(n.Len), each)
	case KindSec:
		fmt.Fprintf(&b, "  %d tasks, work %s%s", s.taskCount(n), FormatNs(s.work(n)), each)
		if n.Nowait {
			b.WriteString(", nowait")
		}
		if c := n.Counters; c != nil {
			fmt.Fprintf(&b, "  [%d instructions, %d cycles, %d LLC misses in %s", c.Instructions, c.Cycles, c.LLCMisses, FormatNs(c.TimeNs))
			if c.Runs > 1 {
				fmt.Fprintf(&b, ", mean of %d runs", c.Runs)
			}
			b.WriteString("]")
		}
	case KindTask:
		fmt.Fprintf(&b, "  work %s%s", FormatNs(s.work(n)), each)
	}
	return b.String()
}

// summarize describes children left out of the listing.
func summarize(rest []*Node, s *summer) string {
	var tasks, secs, others, w int64
	for _, c := range rest {
		r := c.Reps()
		switch c.Kind {
		case KindTask:
			tasks = sat(tasks, 1, r)
		case KindSec:
			secs = sat(secs, 1, r)
		default:
			others = sat(others, 1, r)
		}
		w = sat(w, s.work(c), r)
	}
	var parts []string
	if tasks > 0 {
		parts = append(parts, fmt.Sprintf("%d more tasks", tasks))
	}
	if secs > 0 {
		parts = append(parts, fmt.Sprintf("%d more sections", secs))
	}
	if others > 0 {
		parts = append(parts, fmt.Sprintf("%d more U/L nodes", others))
	}
	return fmt.Sprintf("%s (work %s)", strings.Join(parts, ", "), FormatNs(w))
}

// View is the JSON form of a tree (encode it with encoding/json): the
// totals, the meta data, and the root's children as nested nodes.
type View struct {
	Totals
	Meta  Meta       `json:"meta"`
	Nodes []NodeView `json:"nodes"`
	// LeftOut counts the nodes not written once MaxJSONNodes were: a
	// node shared by several parents appears under each, so a small
	// profile can stand for more nodes than any file should hold.
	LeftOut int64 `json:"left_out,omitempty"`
}

// NodeView is the JSON form of one node. A node shared by several parents
// appears under each of them.
type NodeView struct {
	Kind  string `json:"kind"`
	Name  string `json:"name,omitempty"`
	Count int64  `json:"count"`
	// LenNs is the length of one instance of a U or L node.
	LenNs *int64 `json:"len_ns,omitempty"`
	// WorkNs is the work of one instance (all of its subtree).
	WorkNs   int64      `json:"work_ns"`
	Lock     *int       `json:"lock,omitempty"`
	Nowait   bool       `json:"nowait,omitempty"`
	Setup    bool       `json:"setup,omitempty"`
	Indexed  bool       `json:"indexed,omitempty"`
	Counters *Counters  `json:"counters,omitempty"`
	Children []NodeView `json:"children,omitempty"`
}

// JSON returns the JSON view of t (nil for a nil tree).
func JSON(t *Tree) *View {
	if t == nil || t.Root == nil {
		return nil
	}
	s := newSummer()
	view := &View{Totals: t.Totals(), Meta: t.Meta, Nodes: []NodeView{}}
	written := 0
	var conv func(n *Node) NodeView
	conv = func(n *Node) NodeView {
		written++
		v := NodeView{Kind: n.Kind.String(), Name: n.Name, Count: n.Reps(),
			WorkNs: s.work(n), Nowait: n.Nowait, Setup: n.Setup, Indexed: n.Indexed, Counters: n.Counters}
		if n.Kind.IsLeaf() {
			l := n.Len
			v.LenNs = &l
		}
		if n.Kind == KindL {
			id := n.Lock
			v.Lock = &id
		}
		for _, c := range n.Children {
			if written >= MaxJSONNodes {
				view.LeftOut += s.nodes(c)
				continue
			}
			v.Children = append(v.Children, conv(c))
		}
		return v
	}
	for _, c := range t.Root.Children {
		if written >= MaxJSONNodes {
			view.LeftOut += s.nodes(c)
			continue
		}
		view.Nodes = append(view.Nodes, conv(c))
	}
	return view
}

// maxIDsShown is how many lock ids FormatIDs lists before it summarizes.
const maxIDsShown = 8

// FormatIDs lists sorted lock ids for a person: all of them when there
// are few, else the first few, how many more and their range, so that a
// profile with a lock per hash bucket does not print a line of tens of
// thousands of numbers.
func FormatIDs(ids []int) string {
	if len(ids) <= maxIDsShown {
		s := make([]string, len(ids))
		for i, id := range ids {
			s[i] = strconv.Itoa(id)
		}
		return strings.Join(s, ", ")
	}
	s := make([]string, maxIDsShown-3)
	for i := range s {
		s[i] = strconv.Itoa(ids[i])
	}
	return fmt.Sprintf("%s, … %d more, %d in all from %d to %d", strings.Join(s, ", "), len(ids)-len(s), len(ids), ids[0], ids[len(ids)-1])
}
