package tree

import (
	"fmt"
	"hash/maphash"
	"math"
	"unsafe"
)

// BuildOptions tune a Builder.
type BuildOptions struct {
	// Tolerance is the relative difference within which consecutive
	// same-shaped siblings merge into one run (default 0.05; a negative
	// value asks for exact lengths).
	Tolerance float64
	// SlackNs is an absolute difference in nanoseconds under which two
	// leaf lengths always count as equal (timer noise on tiny nodes).
	SlackNs int64
	// LockSlackNs is SlackNs for the leaves of a task that holds a lock
	// (has an L child): 0 means SlackNs, a negative value none (such
	// tasks merge within Tolerance only). Where tasks take a lock every
	// few hundred nanoseconds, when the threads collide at it follows
	// from each task's own lengths: tasks of 80 to 150 ns merged into one
	// run of their mean make every thread's rhythm the same, and an
	// emulation of identical tasks either collides at every turn or
	// never, where the real loop's varied tasks collide now and then.
	LockSlackNs int64
	// NoCompress turns compression off (every instance kept).
	NoCompress bool
}

// Builder builds a program tree from a stream of events, as the profiler
// sees them, and compresses it online. It is not safe for concurrent use.
//
// # Runs (RLE)
//
// When a Task or Sec closes, or an L node is added, the Builder compares it
// with its previous sibling. They merge into one run (Count grows by one)
// when they have the same shape — kinds, names, nowait, lock ids, presence
// of counters and the same children recursively, nested Counts included —
// and, for every leaf, both the new length x and the run's mean are within
// the tolerance of the mean m of the run they would make together:
// |x−m| ≤ Tolerance·m + SlackNs. (Comparing with the merged mean rather
// than the old one lets a run that began with an unusually long or short
// instance take the next ones, which are up to twice the tolerance away
// from it; from a few instances on, the two means hardly differ.) Leaves keep
// the exact integer sum and number of the instances merged into them, and
// Len is their rounded mean, so the total work of the tree is exact up to
// that rounding (at most half a nanosecond per expanded leaf instance).
// Counters of merged sections are averaged from exact sums (Runs counts
// them).
//
// Drift: an instance is compared with the run's mean, not with the first
// instance, and the mean moves about Tolerance/k of itself at most when the
// k-th instance joins. A steady trend therefore ends a run once it has spanned
// about twice the tolerance. When an instance does not join, the run it
// breaks is final, and its mean is compared once more with the run before
// it (the same rule, with the closed run standing as one instance of its
// mean): lengths jittering around one value break runs now and then, and
// these second-chance merges fold the pieces back, so such a sequence stays
// a handful of nodes instead of one node per break.
//
// # Dictionary
//
// Final subtrees (a child of the root or of the open top-level section
// once two later siblings exist, and everything at Finish) are sealed
// bottom-up
// into a dictionary so that repeated, non-consecutive subtrees share one
// *Node (hash-consing). Leaves match by kind, lock id, Count and length
// within the same tolerance; inner nodes match exactly on kind, name,
// nowait, lock, Count, presence of counters and the identity of their
// (already sealed) children. A matched leaf adds the sum and number of the
// instances it stands for to the dictionary entry, whose Len becomes the
// mean over all its uses: the entry is a non-consecutive run, which keeps
// the total work exact up to rounding, exactly as a run does. Tolerance
// matching (rather than exact lengths) is what makes the dictionary useful
// on measured times, which almost never repeat to the nanosecond. A shared
// node never changes shape; its statistics change only when the dictionary
// interns one more instance into it, and a run never merges into a shared
// node another instance of it (merging stops at a pair of different shared
// nodes), so no parent ever sees another parent's instances.
//
// The Builder allocates nothing in the steady state of merging (a new
// instance joins the run before it): such tasks get no nodes at all (see
// Pending tasks), and other closed instances go to a free list and are
// reused.
//
// # Pending tasks
//
// Most tasks of a loop join the run before them, so a task that opens
// right after a run of tasks with its name gets no node at first: it is
// pending, and each of its U and L events is checked against the next leaf
// of that run (same kind and lock id, a single instance) and only its
// length is kept. If the task ends with the run's shape, its leaves are
// tested and added leaf by leaf (a few integer and floating-point
// operations each, no division); this is the merge the general rules
// would make, without building, comparing and freeing the instance's
// nodes. Anything else (another shape, a nested section, a leaf that
// does not fit, an error) first turns the pending task into its nodes by
// replaying its events, and the general rules take over, so the tree is
// the same either way.
type Builder struct {
	opt   BuildOptions
	tol   float64
	slack float64
	// lockSlack is slack for the leaves of tasks with an L child (see
	// BuildOptions.LockSlackNs).
	lockSlack float64
	exact     bool

	root     *Node
	stack    []*Node
	err      error
	finished bool

	free    []*Node
	freeAcc []*counterAcc

	leaves map[leafKey][]*Node
	inner  map[uint64][]*Node
	seed   maphash.Seed
	nextID int64

	// pend: an open task without a node of its own that is expected to
	// join the run pendRun (the last child of the open section); pendLens
	// are the lengths of its leaves so far, which have the shape of
	// pendRun's first len(pendLens) children.
	pend     bool
	pendRun  *Node
	pendLens []int64
	// general turns pending tasks off (tests compare both paths).
	general bool

	rootSealed int   // root children below this index are sealed
	secSealed  int   // same for the open top-level section
	allocated  int64 // nodes allocated (live or on the free list)
	childSlots int64 // capacity of all children slices
	entries    int64 // dictionary entries
}

// leafKey buckets leaves for the dictionary: a leaf matches an entry of
// its own bucket or of the buckets next to it (bin ± 1).
type leafKey struct {
	kind    Kind
	setup   bool
	indexed bool
	lock    int
	count   int64
	bin     int64
}

// DefaultTolerance is BuildOptions.Tolerance's default: 5%.
const DefaultTolerance = 0.05

// CheckTolerance reports whether tol can be BuildOptions.Tolerance: a
// finite fraction below 1 (zero for DefaultTolerance, negative for exact
// lengths).
func CheckTolerance(tol float64) error {
	if math.IsNaN(tol) || math.IsInf(tol, 0) || tol >= 1 {
		return fmt.Errorf("tolerance %g: must be below 1 (negative: exact lengths)", tol)
	}
	return nil
}

// maxBucket bounds the entries compared on one dictionary lookup.
const maxBucket = 8

// NewBuilder returns a Builder with an open root.
func NewBuilder(opt BuildOptions) *Builder {
	if opt.Tolerance == 0 {
		opt.Tolerance = DefaultTolerance
	}
	b := &Builder{
		opt:    opt,
		tol:    max(opt.Tolerance, 0),
		slack:  float64(max(opt.SlackNs, 0)),
		exact:  opt.Tolerance <= 0,
		leaves: make(map[leafKey][]*Node),
		inner:  make(map[uint64][]*Node),
		seed:   maphash.MakeSeed(),
	}
	switch {
	case opt.LockSlackNs == 0:
		b.lockSlack = b.slack
	case opt.LockSlackNs > 0:
		b.lockSlack = float64(opt.LockSlackNs)
	}
	b.root = b.newNode(KindRoot, "")
	b.stack = append(b.stack, b.root)
	return b
}

// slackOf returns the slack for the leaf children of n: lockSlack where
// n holds a lock (an L child), slack otherwise.
func (b *Builder) slackOf(n *Node) float64 {
	for _, c := range n.Children {
		if c.Kind == KindL {
			return b.lockSlack
		}
	}
	return b.slack
}

func (b *Builder) top() *Node { return b.stack[len(b.stack)-1] }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// usable reports whether events may still be recorded.
func (b *Builder) usable() bool {
	if b.finished {
		b.fail("builder used after Finish")
		return false
	}
	return b.err == nil
}

// newNode returns a fresh node, reused from the free list when possible.
func (b *Builder) newNode(k Kind, name string) *Node {
	var n *Node
	if k := len(b.free); k > 0 {
		n = b.free[k-1]
		b.free = b.free[:k-1]
		// release left Children empty and Counters, acc nil.
		n.Nowait, n.Setup, n.Indexed, n.Lock, n.Len, n.inst, n.sum, n.id = false, false, false, 0, 0, 0, 0, 0
	} else {
		n = &Node{}
		b.allocated++
	}
	n.Kind = k
	n.Name = name
	n.Count = 1
	return n
}

// release puts n and its unshared descendants on the free list.
func (b *Builder) release(n *Node) {
	if n.id != 0 {
		return
	}
	for _, c := range n.Children {
		b.release(c)
	}
	// The old child pointers stay in the slice's array: they point at
	// nodes on the free list or in the dictionary, which live anyway.
	n.Children = n.Children[:0]
	if n.acc != nil {
		b.freeAcc = append(b.freeAcc, n.acc)
		n.acc = nil
		n.Counters = nil
	}
	b.free = append(b.free, n)
}

// addChild appends c to p's children, keeping the memory estimate.
func (b *Builder) addChild(p, c *Node) {
	old := cap(p.Children)
	p.Children = append(p.Children, c)
	if d := cap(p.Children) - old; d != 0 {
		b.childSlots += int64(d)
	}
}

// BeginSec opens a section inside the open root or task.
func (b *Builder) BeginSec(name string) {
	if b.pend {
		b.materialize()
	}
	if !b.usable() {
		return
	}
	p := b.top()
	if p.Kind != KindRoot && p.Kind != KindTask {
		b.fail("section %q opened inside a %s", name, p.Kind)
		return
	}
	n := b.newNode(KindSec, name)
	b.addChild(p, n)
	if p == b.root {
		b.sealRoot()
		b.secSealed = 0
	}
	b.stack = append(b.stack, n)
}

// EndSec closes the open section; c (may be nil) holds its counters, which
// are copied.
func (b *Builder) EndSec(nowait bool, c *Counters) {
	if b.pend {
		b.materialize()
	}
	if !b.usable() {
		return
	}
	n := b.top()
	if n.Kind != KindSec {
		b.fail("section end while a %s is open", n.Kind)
		return
	}
	n.Nowait = nowait
	if c != nil {
		var a *counterAcc
		if k := len(b.freeAcc); k > 0 {
			a = b.freeAcc[k-1]
			b.freeAcc = b.freeAcc[:k-1]
			a.reset()
		} else {
			a = new(counterAcc)
		}
		a.addReading(c)
		n.acc = a
		n.Counters = &a.c
	}
	b.stack = b.stack[:len(b.stack)-1]
	b.closed(b.top())
}

// BeginTask opens a task inside the open section.
func (b *Builder) BeginTask(name string) {
	if b.pend {
		b.materialize()
	}
	if !b.usable() {
		return
	}
	p := b.top()
	if p.Kind != KindSec {
		b.fail("task %q opened inside a %s", name, p.Kind)
		return
	}
	if k := len(p.Children); k > 0 && !b.opt.NoCompress && !b.general {
		if r := p.Children[k-1]; r.Kind == KindTask && r.id == 0 && r.Name == name {
			b.pend, b.pendRun = true, r
			return
		}
	}
	n := b.newNode(KindTask, name)
	b.addChild(p, n)
	b.stack = append(b.stack, n)
}

// EndTask closes the open task.
func (b *Builder) EndTask() {
	if b.pend {
		if b.joinPending() {
			return
		}
		b.materialize()
	}
	if !b.usable() {
		return
	}
	n := b.top()
	if n.Kind != KindTask {
		b.fail("task end while a %s is open", n.Kind)
		return
	}
	b.stack = b.stack[:len(b.stack)-1]
	b.closed(b.top())
}

// U adds ns nanoseconds of computation outside any lock to the open node;
// it joins a U node directly before it.
func (b *Builder) U(ns int64) {
	if ns <= 0 || !b.usable() {
		return
	}
	if b.pend {
		k, ch := len(b.pendLens), b.pendRun.Children
		if k > 0 && ch[k-1].Kind == KindU && !ch[k-1].Setup {
			// Joins the U before it, as in a node of its own.
			b.pendLens[k-1] += ns
			return
		}
		if k < len(ch) && ch[k].Kind == KindU && !ch[k].Setup && ch[k].Count == 1 && ch[k].id == 0 {
			b.pendLens = append(b.pendLens, ns)
			return
		}
		b.materialize()
	}
	p := b.top()
	if k := len(p.Children); k > 0 {
		if last := p.Children[k-1]; last.Kind == KindU && !last.Setup && last.id == 0 && last.Count == 1 {
			last.Len += ns
			last.sum += ns
			return
		}
	}
	n := b.newNode(KindU, "")
	n.Len, n.sum, n.inst = ns, ns, 1
	b.addChild(p, n)
	if p == b.root {
		b.sealRoot()
	}
}

// Setup adds ns nanoseconds of per-worker setup (see Node.Setup) to the
// open task or section, as a U node of its own.
func (b *Builder) Setup(ns int64) {
	if !b.usable() {
		return
	}
	ns = max(ns, 0)
	if b.pendLeaf(ns, func(k int, ch []*Node) bool { return ch[k].Kind == KindU && ch[k].Setup }) {
		return
	}
	p := b.top()
	n := b.newNode(KindU, "")
	n.Setup, n.Len, n.sum, n.inst = true, ns, ns, 1
	b.addChild(p, n)
	if p == b.root {
		b.sealRoot()
	}
}

// L adds ns nanoseconds of computation holding lock id to the open task
// (or section, or root: code that runs serially but takes a lock).
func (b *Builder) L(id int, ns int64) { b.lock(id, false, ns) }

// IndexedL is L for an indexed critical section (see Node.Indexed).
func (b *Builder) IndexedL(id int, ns int64) { b.lock(id, true, ns) }

func (b *Builder) lock(id int, indexed bool, ns int64) {
	if !b.usable() {
		return
	}
	ns = max(ns, 0)
	// An L right after an L of the same lock could merge with it inside
	// the task, which the run's shape does not foresee: such tasks take
	// the general path.
	if b.pendLeaf(ns, func(k int, ch []*Node) bool {
		return ch[k].Kind == KindL && ch[k].Lock == id && ch[k].Indexed == indexed &&
			(k == 0 || ch[k-1].Kind != KindL || ch[k-1].Lock != id)
	}) {
		return
	}
	p := b.top()
	n := b.newNode(KindL, "")
	n.Lock, n.Indexed, n.Len, n.sum, n.inst = id, indexed, ns, ns, 1
	b.addChild(p, n)
	b.closed(p)
}

// pendLeaf offers a leaf of ns to the pending task (see pend): the leaf
// joins it when the run's next child is a single unshared leaf that like
// accepts (k is its index among the run's children ch); otherwise the
// pending task becomes a node of its own. It reports whether ns joined.
func (b *Builder) pendLeaf(ns int64, like func(k int, ch []*Node) bool) bool {
	if !b.pend {
		return false
	}
	k, ch := len(b.pendLens), b.pendRun.Children
	if k < len(ch) && ch[k].Count == 1 && ch[k].id == 0 && like(k, ch) {
		b.pendLens = append(b.pendLens, ns)
		return true
	}
	b.materialize()
	return false
}

// Depth returns how many nodes are open below the root.
func (b *Builder) Depth() int {
	if b.pend {
		return len(b.stack)
	}
	return len(b.stack) - 1
}

// joinPending merges the pending task, which has just ended, into its run
// when it has the run's shape and every leaf fits (the merge closed would
// make), and reports whether it did.
func (b *Builder) joinPending() bool {
	r, lens := b.pendRun, b.pendLens
	ch := r.Children
	if len(lens) != len(ch) {
		return false
	}
	slack := b.slackOf(r)
	for i, x := range lens {
		if !b.fitsOne(ch[i], x, slack) {
			return false
		}
	}
	for i, x := range lens {
		d := ch[i]
		d.sum += x
		d.inst++
		d.Len = mean(d.sum, d.inst)
	}
	r.Count++
	b.pend, b.pendRun, b.pendLens = false, nil, lens[:0]
	return true
}

// materialize turns the pending task into a node of the open section,
// with its leaves so far, by replaying its events on the general path.
func (b *Builder) materialize() {
	r, lens := b.pendRun, b.pendLens
	b.pend, b.pendRun, b.pendLens = false, nil, lens[:0]
	p := b.top()
	n := b.newNode(KindTask, r.Name)
	b.addChild(p, n)
	b.stack = append(b.stack, n)
	for i, ns := range lens {
		switch c := r.Children[i]; {
		case c.Setup:
			b.Setup(ns)
		case c.Kind == KindU:
			b.U(ns)
		default:
			b.lock(c.Lock, c.Indexed, ns)
		}
	}
}

// MemoryBytes returns an estimate of the bytes the Builder holds: its
// nodes (free list included), their children slices and its dictionary.
// Names are not counted (they are the caller's strings).
func (b *Builder) MemoryBytes() int64 {
	const nodeSize = int64(unsafe.Sizeof(Node{}))
	const accSize = int64(unsafe.Sizeof(counterAcc{}))
	const entrySize = 48 // map slot and bucket slice share, roughly
	return b.allocated*nodeSize + b.childSlots*8 + b.entries*entrySize +
		int64(len(b.freeAcc))*accSize + int64(cap(b.stack)+cap(b.free)+cap(b.pendLens))*8
}

// closed handles the last child of p, which has just been closed (a Task
// or Sec ended, an L was added): it joins the run before it when it can;
// otherwise the run before it is final and gets its second chance.
func (b *Builder) closed(p *Node) {
	if b.opt.NoCompress {
		if p == b.root {
			b.sealRoot()
		}
		return
	}
	k := len(p.Children)
	if k < 2 {
		return
	}
	prev, n := p.Children[k-2], p.Children[k-1]
	if b.canMerge(prev, n) {
		b.merge(prev, n)
		p.Children[k-1] = nil
		p.Children = p.Children[:k-1]
		return
	}
	if k < 3 {
		return
	}
	// prev is final: fold it into the run before it if they agree now.
	pp := p.Children[k-3]
	if b.canMerge(pp, prev) {
		b.merge(pp, prev)
		p.Children[k-2] = n
		p.Children[k-1] = nil
		p.Children = p.Children[:k-1]
		return
	}
	// Nested deeper, nothing is sealed while recording: an open node may
	// still merge into the run before it (comparing leaf by leaf), and its
	// subtree is sealed with its top-level ancestor.
	switch {
	case p == b.root:
		b.sealRoot()
	case len(b.stack) == 2:
		// A top-level section: seal its final runs now, so that a long
		// section of tasks that do not merge shares what repeats while
		// it is still recording.
		ch := p.Children
		for b.secSealed < len(ch)-2 {
			ch[b.secSealed] = b.seal(ch[b.secSealed])
			b.secSealed++
		}
	}
}

// sealRoot seals the root's children except the last two (which may still
// grow or absorb a run).
func (b *Builder) sealRoot() {
	ch := b.root.Children
	for b.rootSealed < len(ch)-2 {
		ch[b.rootSealed] = b.seal(ch[b.rootSealed])
		b.rootSealed++
	}
}

// within reports whether x is within the tolerance (and slack) of the
// mean m.
func (b *Builder) within(m, x int64, slack float64) bool {
	d := x - m
	if d < 0 {
		d = -d
	}
	if b.exact {
		return float64(d) <= slack
	}
	return float64(d) <= b.tol*float64(m)+slack
}

// fits reports whether the leaves d and s (builder leaves: inst ≥ 1) may
// merge: the means of both are within the tolerance (and slack) of the
// mean of the run they would make together.
func (b *Builder) fits(d, s *Node, slack float64) bool {
	if d.inst < 1 || s.inst < 1 {
		return b.within(d.Len, s.Len, slack)
	}
	if s.inst == 1 {
		return b.fitsOne(d, s.sum, slack)
	}
	return b.fitsMeans(d, s.sum, s.inst, slack)
}

// fitsMeans is fits for a leaf d (inst ≥ 1) and sum and inst ≥ 1
// instances of the other leaf, by the formula of the rule.
func (b *Builder) fitsMeans(d *Node, sum, inst int64, slack float64) bool {
	md := float64(d.sum) / float64(d.inst)
	ms := float64(sum) / float64(inst)
	m := float64(d.sum+sum) / float64(d.inst+inst)
	lim := slack
	if !b.exact {
		lim += b.tol * m
	}
	return math.Abs(md-m) <= lim && math.Abs(ms-m) <= lim
}

// fitsOne is fits for a leaf d (inst ≥ 1) and one instance of length x,
// without divisions. With n = d.inst, N = n+1 and D = |d.sum − n·x|, the
// mean of the merged run is m = (d.sum+x)/N, |x−m| = D/N and |d's mean −
// m| = D/(n·N) ≤ D/N, so the rule reduces to D ≤ lim·N = slack·N +
// Tolerance·(d.sum+x). Near that bound, where rounding could decide, it
// defers to fitsMeans, so the answer is always the formula's.
func (b *Builder) fitsOne(d *Node, x int64, slack float64) bool {
	if d.inst < 1 {
		return b.within(d.Len, x, slack)
	}
	n := float64(d.inst)
	sx := float64(x)
	dev := math.Abs(float64(d.sum) - n*sx)
	limN := slack * (n + 1)
	if !b.exact {
		limN += b.tol * float64(d.sum+x)
	}
	margin := 1e-9 * (float64(d.sum) + n*sx + limN)
	switch {
	case dev < limN-margin:
		return true
	case dev > limN+margin:
		return false
	}
	return b.fitsMeans(d, x, 1, slack)
}

// canMerge reports whether s (an instance or a final run) can join the run
// d: same shape, nested counts included, and every leaf of s within the
// tolerance (and the slack of its parent, slackOf) of d's mean. The
// counts of d and s themselves may differ.
func (b *Builder) canMerge(d, s *Node) bool { return b.canMergeSlack(d, s, b.slack) }

// canMergeSlack is canMerge with slack for d and s where they are leaves.
func (b *Builder) canMergeSlack(d, s *Node, slack float64) bool {
	if d == s {
		return true
	}
	if d.id != 0 || s.id != 0 {
		return false
	}
	if d.Kind != s.Kind || d.Lock != s.Lock || d.Nowait != s.Nowait || d.Setup != s.Setup || d.Indexed != s.Indexed ||
		d.Name != s.Name || (d.acc == nil) != (s.acc == nil) ||
		d.Kind == KindRoot {
		return false
	}
	if d.Kind.IsLeaf() {
		return b.fits(d, s, slack)
	}
	if len(d.Children) != len(s.Children) {
		return false
	}
	slack = b.slackOf(d)
	for i, dc := range d.Children {
		sc := s.Children[i]
		if dc.Count != sc.Count || !b.canMergeSlack(dc, sc, slack) {
			return false
		}
	}
	return true
}

// merge adds the run s to the run d (canMerge(d, s) holds) and frees s.
func (b *Builder) merge(d, s *Node) {
	b.absorb(d, s)
	d.Count += s.Count
	b.release(s)
}

// absorb adds the leaf sums and counters of s to the same-shaped d.
func (b *Builder) absorb(d, s *Node) {
	if d == s {
		return
	}
	if d.Kind.IsLeaf() {
		d.sum += s.sum
		d.inst += s.inst
		d.Len = mean(d.sum, d.inst)
		return
	}
	if d.acc != nil {
		d.acc.merge(s.acc)
	}
	for i, dc := range d.Children {
		b.absorb(dc, s.Children[i])
	}
}

// mean returns sum/n rounded to the nearest integer (n ≥ 1).
func mean(sum, n int64) int64 {
	if n <= 1 {
		return sum
	}
	return (sum + n/2) / n
}

// seal interns the subtree n bottom-up and returns its canonical node
// (n itself, or the dictionary's equal node, into which n was folded).
func (b *Builder) seal(n *Node) *Node {
	if n.id != 0 {
		return n
	}
	for i, c := range n.Children {
		n.Children[i] = b.seal(c)
	}
	if b.opt.NoCompress {
		b.nextID++
		n.id = b.nextID
		return n
	}
	if n.Kind.IsLeaf() {
		return b.sealLeaf(n)
	}
	return b.sealInner(n)
}

func (b *Builder) register(n *Node) {
	b.nextID++
	n.id = b.nextID
	b.entries++
}

func (b *Builder) bin(l int64) int64 {
	if b.exact || l <= 0 {
		return l
	}
	return int64(math.Log(float64(l)) / math.Log1p(b.tol))
}

func (b *Builder) sealLeaf(n *Node) *Node {
	key := leafKey{kind: n.Kind, setup: n.Setup, indexed: n.Indexed, lock: n.Lock, count: n.Count, bin: b.bin(n.Len)}
	home := key
	for _, d := range [...]int64{0, -1, 1} {
		key.bin = home.bin + d
		for _, e := range b.leaves[key] {
			if b.within(e.Len, n.Len, b.slack) {
				e.sum += n.sum
				e.inst += n.inst
				e.Len = mean(e.sum, e.inst)
				b.release(n)
				return e
			}
		}
	}
	if len(b.leaves[home]) < maxBucket {
		b.leaves[home] = append(b.leaves[home], n)
	}
	b.register(n)
	return n
}

// innerHash hashes what an inner node is made of, its children by identity.
func (b *Builder) innerHash(n *Node) uint64 {
	h := maphash.String(b.seed, n.Name)
	mix := func(v uint64) {
		h ^= v
		h *= 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	flags := uint64(n.Kind)
	if n.Nowait {
		flags |= 1 << 8
	}
	if n.acc != nil {
		flags |= 1 << 9
	}
	if n.Setup {
		flags |= 1 << 10
	}
	mix(flags)
	mix(uint64(n.Lock))
	mix(uint64(n.Count))
	for _, c := range n.Children {
		mix(uint64(c.id))
	}
	return h
}

func sameInner(a, c *Node) bool {
	if a.Kind != c.Kind || a.Name != c.Name || a.Nowait != c.Nowait ||
		a.Lock != c.Lock || a.Count != c.Count || (a.acc == nil) != (c.acc == nil) ||
		len(a.Children) != len(c.Children) {
		return false
	}
	for i, x := range a.Children {
		if x != c.Children[i] {
			return false
		}
	}
	return true
}

func (b *Builder) sealInner(n *Node) *Node {
	if n.Kind == KindRoot {
		b.register(n)
		return n
	}
	h := b.innerHash(n)
	for _, e := range b.inner[h] {
		if sameInner(e, n) {
			if e.acc != nil {
				e.acc.merge(n.acc)
			}
			b.release(n)
			return e
		}
	}
	if len(b.inner[h]) < maxBucket {
		b.inner[h] = append(b.inner[h], n)
	}
	b.register(n)
	return n
}

// Finish closes the tree and returns it. It fails if anything is still
// open or the events did not nest. The Builder cannot be used afterwards.
func (b *Builder) Finish(meta Meta) (*Tree, error) {
	if b.pend {
		b.materialize()
	}
	if b.err != nil {
		return nil, b.err
	}
	if b.finished {
		return nil, fmt.Errorf("builder used after Finish")
	}
	if len(b.stack) != 1 {
		return nil, fmt.Errorf("%s %q still open", b.top().Kind, b.top().Name)
	}
	b.finished = true
	for i, c := range b.root.Children {
		b.root.Children[i] = b.seal(c)
	}
	markShared(b.root)
	b.free, b.freeAcc = nil, nil
	b.leaves, b.inner = nil, nil
	meta.Tolerance = b.opt.Tolerance
	t := &Tree{Root: b.root, Meta: meta}
	if err := Validate(t); err != nil {
		return nil, fmt.Errorf("building tree: %w", err)
	}
	return t, nil
}

// markShared leaves a nonzero id only on the nodes of the finished tree
// that more than one parent edge reaches, as Read does, so that Work and
// Totals memoize just those.
func markShared(root *Node) {
	refs := make(map[*Node]int)
	var visit func(n *Node)
	visit = func(n *Node) {
		for _, c := range n.Children {
			refs[c]++
			if refs[c] == 1 {
				visit(c)
			}
		}
	}
	visit(root)
	root.id = 0
	for n, r := range refs {
		if r < 2 {
			n.id = 0
		}
	}
}
