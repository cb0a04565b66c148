package analyze

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parallel-prophet/prophet/tree"
)

// Change is one hypothetical change to a region of the program.
// Exactly one of Faster and Parallelize is set.
type Change struct {
	// Region is the region's name ("sec:NAME", "task:NAME" or "serial");
	// a bare NAME is accepted when it names exactly one region.
	Region string `json:"region"`
	// Faster, when not zero, makes every computation inside the region
	// Faster times faster (U and L lengths divided by it).
	Faster float64 `json:"faster,omitempty"`
	// Parallelize, when not zero, splits the region's own serial
	// computation (its U nodes) into Parallelize parallel tasks.
	Parallelize int `json:"parallelize,omitempty"`
}

// String describes the change in words.
func (c Change) String() string {
	switch {
	case c.Faster != 0:
		return fmt.Sprintf("%s %gx faster", c.Region, c.Faster)
	case c.Parallelize != 0:
		return fmt.Sprintf("%s parallelized %d ways", c.Region, c.Parallelize)
	}
	return c.Region + " unchanged"
}

// splitSuffix marks the section and task names WhatIf creates.
const splitSuffix = "/split"

// Regions returns the names of all regions of t, sorted.
func Regions(t *tree.Tree) []string {
	if t == nil || t.Root == nil {
		return nil
	}
	seen := make(map[*tree.Node]bool)
	names := make(map[string]bool)
	var walk func(n *tree.Node)
	walk = func(n *tree.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if r := RegionName(n); r != "" {
			names[r] = true
		}
		for _, c := range n.Children {
			if c != nil && !c.Kind.IsLeaf() {
				walk(c)
			}
		}
	}
	for _, c := range t.Root.Children {
		if c == nil {
			continue
		}
		if c.Kind.IsLeaf() {
			names[SerialRegion] = true
			continue
		}
		walk(c)
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ResolveRegion returns the region of t that name designates: an exact
// region name, or a bare section or task name that matches exactly one
// region. The error for an unknown name lists similar ones.
func ResolveRegion(t *tree.Tree, name string) (string, error) {
	all := Regions(t)
	if slices.Contains(all, name) {
		return name, nil
	}
	var bare []string
	for _, r := range all {
		if r == "sec:"+name || r == "task:"+name {
			bare = append(bare, r)
		}
	}
	if len(bare) == 1 {
		return bare[0], nil
	}
	if len(bare) > 1 {
		return "", fmt.Errorf("region %q is ambiguous: say %s", name, strings.Join(bare, " or "))
	}
	similar := similarNames(name, all)
	if len(similar) == 0 {
		if len(all) == 0 {
			return "", fmt.Errorf("no region %q: the program has no regions", name)
		}
		return "", fmt.Errorf("no region %q; the regions are: %s", name, listNames(all, 12))
	}
	return "", fmt.Errorf("no region %q; did you mean %s?", name, listNames(similar, 8))
}

func listNames(names []string, most int) string {
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:most], ", ") + fmt.Sprintf(" (and %d more)", len(names)-most)
}

// similarNames returns the names close to name: sharing a substring
// with it, or within a small edit distance, closest first.
func similarNames(name string, all []string) []string {
	type cand struct {
		s string
		d int
	}
	q := strings.ToLower(name)
	if _, after, ok := strings.Cut(q, ":"); ok {
		q = after
	}
	var cs []cand
	for _, r := range all {
		base := strings.ToLower(r)
		if _, after, ok := strings.Cut(base, ":"); ok {
			base = after
		}
		d := editDistance(q, base)
		if q != "" && (strings.Contains(base, q) || strings.Contains(q, base)) {
			d = min(d, 1)
		}
		if d <= max(2, len(q)/3) {
			cs = append(cs, cand{r, d})
		}
	}
	slices.SortStableFunc(cs, func(x, y cand) int { return x.d - y.d })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.s
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (in bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// WhatIf returns a copy of t with change applied (see the package
// documentation). t is not modified; the copy shares t's unchanged
// subtrees.
func WhatIf(t *tree.Tree, change Change) (*tree.Tree, error) {
	if t == nil || t.Root == nil {
		return nil, fmt.Errorf("what-if: empty program tree")
	}
	switch {
	case change.Faster != 0 && change.Parallelize != 0:
		return nil, fmt.Errorf("what-if on %q: make it faster or parallelize it, not both at once", change.Region)
	case change.Faster == 0 && change.Parallelize == 0:
		return nil, fmt.Errorf("what-if on %q: no change given (a faster factor or a parallelize count)", change.Region)
	case change.Faster < 0 || math.IsNaN(change.Faster) || math.IsInf(change.Faster, 0):
		return nil, fmt.Errorf("what-if on %q: faster factor %g must be a positive number", change.Region, change.Faster)
	case change.Parallelize < 0:
		return nil, fmt.Errorf("what-if on %q: parallelize count %d must be at least 1", change.Region, change.Parallelize)
	}
	region, err := ResolveRegion(t, change.Region)
	if err != nil {
		return nil, fmt.Errorf("what-if: %w", err)
	}
	w := &rewriter{region: region, change: change}
	w.memo[0] = make(map[*tree.Node]*tree.Node)
	w.memo[1] = make(map[*tree.Node]*tree.Node)
	root := w.rewriteRoot(t.Root)
	return &tree.Tree{Root: root, Meta: t.Meta}, nil
}

type rewriter struct {
	region string
	change Change
	// memo[0] holds rewritten nodes outside the region, memo[1] inside.
	memo [2]map[*tree.Node]*tree.Node
}

func (w *rewriter) faster(n *tree.Node) *tree.Node {
	l := int64(math.Round(float64(n.Len) / w.change.Faster))
	if l == n.Len {
		return n
	}
	m := *n
	m.Len = l
	return &m
}

// rewriteRoot handles the root, whose own leaves are the "serial" region.
func (w *rewriter) rewriteRoot(n *tree.Node) *tree.Node {
	own := w.region == SerialRegion
	kids := make([]*tree.Node, 0, len(n.Children))
	changed := false
	for _, c := range n.Children {
		nc := c
		switch {
		case c == nil:
		case c.Kind.IsLeaf() && own:
			nc = w.ownLeaf(c)
		case !c.Kind.IsLeaf():
			nc = w.rewrite(c, false)
		}
		changed = changed || nc != c
		kids = append(kids, nc)
	}
	if !changed {
		return n
	}
	m := *n
	m.Children = kids
	return &m
}

// ownLeaf applies the change to a leaf that belongs to a task region or
// the serial region itself: faster, or a U node split into a nested
// section of parallel tasks.
func (w *rewriter) ownLeaf(c *tree.Node) *tree.Node {
	if w.change.Faster != 0 {
		return w.faster(c)
	}
	tasks := w.split(c, 1)
	if tasks == nil {
		return c
	}
	return tree.Run(c.Reps(), tree.Sec(tasks[0].Name, tasks...))
}

// split returns the runs of tasks that replace one U node split
// Parallelize ways, each run repeated reps times as often, or nil when
// the node is not split (not a U node, empty, or Parallelize ≤ 1).
func (w *rewriter) split(c *tree.Node, reps int64) []*tree.Node {
	if c.Kind != tree.KindU || w.change.Parallelize <= 1 || c.Len <= 0 {
		return nil
	}
	k := min(int64(w.change.Parallelize), c.Len)
	q, rem := c.Len/k, c.Len%k
	name := fmt.Sprintf("%s%s%d", regionBase(w.region), splitSuffix, w.change.Parallelize)
	var tasks []*tree.Node
	if rem > 0 {
		tasks = append(tasks, tree.Run(rem*reps, tree.Task(name, tree.U(q+1))))
	}
	return append(tasks, tree.Run((k-rem)*reps, tree.Task(name, tree.U(q))))
}

func regionBase(r string) string {
	if _, after, ok := strings.Cut(r, ":"); ok {
		return after
	}
	return r
}

// rewrite returns n with the change applied below it (n itself when
// nothing changes); inside says n is inside an instance of the region.
func (w *rewriter) rewrite(n *tree.Node, inside bool) *tree.Node {
	idx := 0
	if inside {
		idx = 1
	}
	if m, ok := w.memo[idx][n]; ok {
		return m
	}
	own := RegionName(n) == w.region
	inner := inside || (own && w.change.Faster != 0)
	kids := make([]*tree.Node, 0, len(n.Children))
	changed := false
	for _, c := range n.Children {
		if c == nil {
			kids = append(kids, c)
			continue
		}
		nc := c
		switch {
		case c.Kind.IsLeaf() && inner:
			nc = w.faster(c)
		case c.Kind.IsLeaf() && own && n.Kind == tree.KindSec && w.change.Parallelize != 0:
			// The section's strand: its U nodes become tasks of the
			// section itself.
			if tasks := w.split(c, c.Reps()); tasks != nil {
				kids = append(kids, tasks...)
				changed = true
				continue
			}
		case c.Kind.IsLeaf() && own:
			nc = w.ownLeaf(c)
		case !c.Kind.IsLeaf():
			nc = w.rewrite(c, inner)
		}
		changed = changed || nc != c
		kids = append(kids, nc)
	}
	out := n
	if changed {
		m := *n
		m.Children = kids
		out = &m
	}
	w.memo[idx][n] = out
	return out
}

// ErrUnreachable is returned (wrapped) by TargetParallelism when the
// target cannot be reached.
var ErrUnreachable = errors.New("target parallelism cannot be reached")

// Plan is the result of TargetParallelism.
type Plan struct {
	Target float64 `json:"target"`
	// Factor is the parallelize count used for every change.
	Factor int `json:"factor"`
	// Changes are the regions to parallelize, in the order chosen (the
	// most work on the critical path first).
	Changes []Change `json:"changes"`
	// Before and After are the parallelism before and after all
	// Changes.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Reached says whether After ≥ Target.
	Reached bool `json:"reached"`
	// Tree is the changed tree (t itself when there are no changes).
	Tree *tree.Tree `json:"-"`
}

// TargetParallelism greedily picks regions to parallelize until the
// program's parallelism T1/T∞ reaches target (OMP-Adviser's automatic
// what-if analysis): at each step it analyzes the current tree, takes the
// region of the original program, not yet tried, whose own computation
// is the largest part of the critical path, and splits it factor ways
// (factor ≤ 0 means ceil(target), at least 2); a split that does not
// shorten the span is not kept. It fails, wrapping ErrUnreachable, when no
// region is left to try, or at once when a lock bounds the program below
// target (a lock's critical sections run one at a time, whatever the
// span); the Plan then holds the progress made.
func TargetParallelism(t *tree.Tree, target float64, factor int) (Plan, error) {
	plan := Plan{Target: target, Factor: factor, Tree: t}
	if !(target > 0) || math.IsInf(target, 0) {
		return plan, fmt.Errorf("target parallelism %g: must be a positive number", target)
	}
	if factor <= 0 {
		plan.Factor = max(2, int(math.Ceil(target)))
	}
	a, err := Analyze(t, Options{Threads: []int{1}})
	if err != nil {
		return plan, err
	}
	plan.Before, plan.After = a.Parallelism, a.Parallelism
	if a.LockBound > 0 && a.LockBound < target {
		l := a.Locks[0]
		return plan, fmt.Errorf("%w: lock %d is held %d ns of the %d ns of work, so no split of computation can give more than %.3g-fold parallelism (target %g)",
			ErrUnreachable, l.ID, l.HeldNs, a.WorkNs, a.LockBound, target)
	}
	if a.Parallelism >= target {
		plan.Reached = true
		return plan, nil
	}
	original := make(map[string]bool)
	for _, r := range Regions(t) {
		original[r] = true
	}
	tried := make(map[string]bool)
	cur := t
	for {
		next := ""
		for _, r := range a.Regions { // sorted by SelfOnSpanNs first
			if original[r.Name] && !tried[r.Name] && r.SelfOnSpanNs > 0 {
				next = r.Name
				break
			}
		}
		if next == "" {
			return plan, fmt.Errorf("%w: parallelism %.3g after %d change(s), no region left whose own computation lies on the critical path (target %g; a larger split factor may help)",
				ErrUnreachable, plan.After, len(plan.Changes), target)
		}
		tried[next] = true
		ch := Change{Region: next, Parallelize: plan.Factor}
		nt, err := WhatIf(cur, ch)
		if err != nil {
			return plan, err
		}
		na, err := Analyze(nt, Options{Threads: []int{1}})
		if err != nil {
			return plan, err
		}
		if na.SpanNs >= a.SpanNs {
			continue // the split did not shorten the critical path
		}
		cur, a = nt, na
		plan.Changes = append(plan.Changes, ch)
		plan.Tree, plan.After = cur, a.Parallelism
		if a.Parallelism >= target {
			plan.Reached = true
			return plan, nil
		}
	}
}
