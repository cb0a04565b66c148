package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// SerialRegion is the name of the region made of the top-level code
// outside any section.
const SerialRegion = "serial"

// Options tune Analyze.
type Options struct {
	// Overheads are the runtime costs charged on the burdened span. A
	// zero value charges nothing (the burdened span equals the span).
	Overheads machine.Overheads
	// Threads are the thread counts for which Bounds are computed; nil
	// means DefaultThreads.
	Threads []int
}

// DefaultThreads are the thread counts Analyze computes bounds for when
// Options.Threads is empty.
var DefaultThreads = []int{1, 2, 4, 8, 16, 32, 64}

// Analysis is the work/span profile of a program tree.
type Analysis struct {
	// WorkNs is the work T1: the serial time, the sum of all U and L
	// lengths.
	WorkNs int64 `json:"work_ns"`
	// SpanNs is the span T∞: the length of the critical path.
	SpanNs int64 `json:"span_ns"`
	// Parallelism is T1/T∞ (1 for an empty tree).
	Parallelism float64 `json:"parallelism"`
	// BurdenedSpanNs is the span with runtime costs charged (see the
	// package documentation for exactly what); BurdenedParallelism is
	// T1 over it.
	BurdenedSpanNs      int64   `json:"burdened_span_ns"`
	BurdenedParallelism float64 `json:"burdened_parallelism"`
	// BurdenedForks is the most team starts on one path through the
	// program (sections nested or one after another). Go wakes a team's
	// idle cores one after another (Overheads.WakeStepNs), so on P
	// threads each start on the path is later by (P−2) wake steps
	// beyond the burdened span's charge, which the lower bound adds.
	BurdenedForks int64 `json:"burdened_forks"`
	// LockBound is T1 over the largest total time any one lock id is
	// held: no schedule can beat it. Zero when the program takes no
	// lock.
	LockBound float64 `json:"lock_bound,omitempty"`
	// Locks lists every lock id with its total hold time, longest first.
	Locks []Lock `json:"locks,omitempty"`
	// ShortLocks are the locks held, on average, for less than one check
	// of a goroutine spinning for a sync.Mutex (SpinCheckNs of
	// Overheads) and for at least ShortLockShare of the work, longest
	// held first. Threads that meet at such a lock wait a whole check
	// each time they do, many times what the lock is held for. Real runs
	// of such a loop either take turns at the lock or meet at it at
	// nearly every other acquisition, and which one a run falls into
	// changes from run to run. The speedup bounds, whose threads take
	// turns, show only the first: for a program with such a lock they
	// are the upper end of what real runs give. ff follows the threads'
	// spin checks from the recorded lengths, and a real run may land on
	// either side of its prediction.
	ShortLocks []Lock `json:"short_locks,omitempty"`
	// Sections are the top-level sections in program order.
	Sections []Section `json:"sections"`
	// Regions is the per-region profile, the region that limits scaling
	// first.
	Regions []Region `json:"regions"`
	// Bounds are the speedup bounds for each thread count asked for.
	Bounds []Bound `json:"bounds"`
	// Tasks is the number of task instances (runs expanded); Nodes the
	// number of distinct section, task and root nodes (a node shared by
	// several parents counted once).
	Tasks int64 `json:"tasks"`
	Nodes int64 `json:"nodes"`
	// Overheads are the costs charged on the burdened span.
	Overheads machine.Overheads `json:"overheads"`

	top []topItem
}

// Lock is the total time one lock id is held.
type Lock struct {
	ID int `json:"id"`
	// HeldNs is the total length of the L nodes of this id.
	HeldNs int64 `json:"held_ns"`
	// Acquisitions is how many L node instances there are.
	Acquisitions int64 `json:"acquisitions"`
	// Indexed is how many of them are indexed critical sections
	// (tree.Node.Indexed).
	Indexed int64 `json:"indexed,omitempty"`
}

// Section is the work/span of one top-level section node, all its Count
// runs together.
type Section struct {
	Name string `json:"name"`
	// Index is the section's place among the top-level sections, in
	// program order from 1: what tells apart sections of one name.
	Index          int     `json:"index"`
	Count          int64   `json:"count"`
	WorkNs         int64   `json:"work_ns"`
	SpanNs         int64   `json:"span_ns"`
	BurdenedSpanNs int64   `json:"burdened_span_ns"`
	Parallelism    float64 `json:"parallelism"`
	// MaxLockNs is the largest total hold time of one lock id inside the
	// section (zero when it takes no lock).
	MaxLockNs int64 `json:"max_lock_ns,omitempty"`
}

// Region is the profile of one region (a section or task name, or the
// top-level serial code). See the package documentation.
type Region struct {
	// Name is "sec:NAME", "task:NAME" or "serial".
	Name string `json:"name"`
	// Site is the file:line of the annotation that began the region, when
	// the profile recorded it (tree.Meta.Sites).
	Site string `json:"site,omitempty"`
	// Instances is the number of (outermost) instances.
	Instances    int64   `json:"instances"`
	WorkNs       int64   `json:"work_ns"`
	SpanNs       int64   `json:"span_ns"`
	Parallelism  float64 `json:"parallelism"`
	OnSpanNs     int64   `json:"on_span_ns"`
	SelfWorkNs   int64   `json:"self_work_ns"`
	SelfOnSpanNs int64   `json:"self_on_span_ns"`
}

// Bound holds the speedup bounds for one thread count.
type Bound struct {
	Threads int `json:"threads"`
	// Lower is Cilkview's estimate T1/(T1/P + burdened span), with the
	// wake chain's delay on P threads added to the burdened span (see
	// the package documentation), at most Upper.
	Lower float64 `json:"lower"`
	// Upper is the work/span/lock upper bound.
	Upper float64 `json:"upper"`
}

// topItem is one root child, kept for Bounds.
type topItem struct {
	serial  float64 // a leaf: serial time whatever P
	work    float64
	span    float64
	maxLock float64
}

// Analyze computes the work/span profile of t.
func Analyze(t *tree.Tree, opt Options) (*Analysis, error) {
	if t == nil || t.Root == nil {
		return nil, fmt.Errorf("analyzing: empty program tree")
	}
	a := newAnalyzer(opt.Overheads)
	root, err := a.root(t.Root)
	if err != nil {
		return nil, fmt.Errorf("analyzing: %w", err)
	}
	res := &Analysis{
		WorkNs:         root.work,
		SpanNs:         root.span,
		Parallelism:    ratio(root.work, root.span),
		BurdenedSpanNs: int64(math.Round(root.bspan)),
		BurdenedForks:  root.forks,
		Tasks:          root.tasks,
		Nodes:          a.nodes,
		Overheads:      opt.Overheads,
		Sections:       a.sections,
		top:            a.top,
	}
	res.BurdenedParallelism = 1
	if root.bspan > 0 {
		res.BurdenedParallelism = float64(root.work) / root.bspan
	}
	for _, l := range root.locks {
		res.Locks = append(res.Locks, Lock{ID: l.id, HeldNs: l.ns, Acquisitions: l.n, Indexed: l.idx})
	}
	slices.SortStableFunc(res.Locks, func(x, y Lock) int {
		return cmp.Or(cmp.Compare(y.HeldNs, x.HeldNs), cmp.Compare(x.ID, y.ID))
	})
	if len(res.Locks) > 0 && res.Locks[0].HeldNs > 0 {
		res.LockBound = float64(root.work) / float64(res.Locks[0].HeldNs)
	}
	res.ShortLocks = res.shortLocks()
	onSpan := make(map[regionID]pathEnt, len(root.path))
	for _, e := range root.path {
		onSpan[e.r] = e
	}
	for _, e := range root.all {
		p := onSpan[e.r]
		res.Regions = append(res.Regions, Region{
			Name:         a.names[e.r],
			Site:         t.Meta.Sites[a.names[e.r]],
			Instances:    e.inst,
			WorkNs:       e.work,
			SpanNs:       e.span,
			Parallelism:  ratio(e.work, e.span),
			OnSpanNs:     p.on,
			SelfWorkNs:   e.self,
			SelfOnSpanNs: p.self,
		})
	}
	slices.SortStableFunc(res.Regions, func(x, y Region) int {
		return cmp.Or(
			cmp.Compare(y.SelfOnSpanNs, x.SelfOnSpanNs),
			cmp.Compare(y.OnSpanNs, x.OnSpanNs),
			cmp.Compare(y.WorkNs, x.WorkNs),
			cmp.Compare(x.Name, y.Name))
	})
	threads := opt.Threads
	if len(threads) == 0 {
		threads = DefaultThreads
	}
	res.Bounds = res.BoundsFor(threads...)
	return res, nil
}

// Region returns the profile of the region called name.
func (a *Analysis) Region(name string) (Region, bool) {
	for _, r := range a.Regions {
		if r.Name == name {
			return r, true
		}
	}
	return Region{}, false
}

// BoundsFor returns the speedup bounds for the given thread counts
// (counts below 1 are skipped). See the package documentation.
func (a *Analysis) BoundsFor(threads ...int) []Bound {
	var out []Bound
	for _, p := range threads {
		if p < 1 {
			continue
		}
		out = append(out, a.bound(p))
	}
	return out
}

func (a *Analysis) bound(p int) Bound {
	P := float64(p)
	T1 := float64(a.WorkNs)
	b := Bound{Threads: p, Lower: 1, Upper: 1}
	if T1 <= 0 {
		return b
	}
	var tp float64 // lower bound on the parallel time
	if len(a.top) == 0 {
		// An Analysis built by hand: the whole-program bound.
		tp = max(T1/P, float64(a.SpanNs))
		if a.LockBound > 0 {
			tp = max(tp, T1/a.LockBound)
		}
	}
	for _, it := range a.top {
		if it.serial > 0 {
			tp += it.serial
			continue
		}
		tp += max(it.work/P, it.span, it.maxLock)
	}
	if tp > 0 {
		b.Upper = T1 / tp
	}
	b.Lower = min(T1/(T1/P+float64(a.BurdenedSpanNs)+a.wakeChainNs(p)), b.Upper)
	return b
}

// wakeChainNs is what the wake chain adds to the burdened span on p
// threads: every team start on the path (BurdenedForks) has its last
// worker woken p−2 wake steps after the second (Overheads.WakeStepNs;
// nothing without one, or on two threads or fewer).
func (a *Analysis) wakeChainNs(p int) float64 {
	step := a.Overheads.WakeStepNs
	if !(step > 0) || math.IsInf(step, 0) || p <= 2 {
		return 0
	}
	return float64(a.BurdenedForks) * float64(p-2) * step
}

func ratio(w, s int64) float64 {
	if s <= 0 {
		return 1
	}
	return float64(w) / float64(s)
}

// regionID indexes analyzer.names.
type regionID int32

// pathEnt is one region's share of a critical path: on is the time the
// path spends inside (outermost) instances of the region, self the time
// in the region's own leaves.
type pathEnt struct {
	r        regionID
	on, self int64
}

// allEnt is one region's totals over every instance.
type allEnt struct {
	r                      regionID
	inst, work, span, self int64
}

type lockEnt struct {
	id    int
	ns, n int64
	idx   int64 // indexed instances (tree.Node.Indexed)
}

// lockOf returns the lock entry of one instance of L node c.
func lockOf(c *tree.Node) lockEnt {
	e := lockEnt{id: c.Lock, ns: c.Len, n: 1}
	if c.Indexed {
		e.idx = 1
	}
	return e
}

// info is what is known about one instance of a node (Count ignored).
type info struct {
	work  int64
	span  int64
	bspan float64
	// forks is the most team starts on one path through the instance
	// (nested sections one inside another, or one after another).
	forks int64
	tasks int64
	path  []pathEnt // sorted by r
	all   []allEnt  // sorted by r
	locks []lockEnt // sorted by id
	// strand is, for a section, the total length of its own leaves, and
	// bstrand the same with lock costs.
	strand  int64
	bstrand float64
}

type analyzer struct {
	ov       machine.Overheads
	taskCost float64
	ids      map[string]regionID
	names    []string
	memo     map[*tree.Node]*info
	nodes    int64
	sections []Section
	top      []topItem
}

func newAnalyzer(ov machine.Overheads) *analyzer {
	return &analyzer{
		ov:       ov,
		taskCost: max(ov.SpawnNs, ov.ChunkNs, 0),
		ids:      make(map[string]regionID),
		memo:     make(map[*tree.Node]*info),
	}
}

func (a *analyzer) region(name string) regionID {
	if id, ok := a.ids[name]; ok {
		return id
	}
	id := regionID(len(a.names))
	a.ids[name] = id
	a.names = append(a.names, name)
	return id
}

// RegionName returns the region name of a Sec or Task node ("sec:NAME",
// "task:NAME"), or "" for other kinds.
func RegionName(n *tree.Node) string {
	switch n.Kind {
	case tree.KindSec:
		return "sec:" + n.Name
	case tree.KindTask:
		return "task:" + n.Name
	}
	return ""
}

// leafCost returns the burdened length of one instance of a leaf.
func (a *analyzer) leafCost(n *tree.Node) float64 {
	if n.Kind == tree.KindL {
		return float64(n.Len) + max(a.ov.LockNs, 0)
	}
	return float64(n.Len)
}

// series composes children run one after another (a task's or the
// root's), r being the region their own leaves belong to.
type series struct {
	cur, pend     int64
	bcur, bpend   float64
	forks         int64 // team starts one after another (see info.forks)
	curPath       []pathEnt
	pendPath      []pathEnt
	curSelf       int64
	pendSelf      int64
	hasPend       bool
	work, tasks   int64
	self          int64 // own leaves' work
	all           allSum
	locks         lockSum
	joinAllNowait bool // the root: every section is joined
}

func (a *analyzer) compose(n *tree.Node, s *series) error {
	for _, c := range n.Children {
		if c == nil {
			return fmt.Errorf("%s %q has a nil child", n.Kind, n.Name)
		}
		reps := c.Reps()
		switch c.Kind {
		case tree.KindU, tree.KindL:
			if c.Len < 0 {
				return fmt.Errorf("%s node with negative length %d", c.Kind, c.Len)
			}
			w := c.Len * reps
			s.cur += w
			s.curSelf += w
			s.bcur += a.leafCost(c) * float64(reps)
			s.work += w
			s.self += w
			if c.Kind == tree.KindL {
				s.locks.merge([]lockEnt{lockOf(c)}, reps)
			}
		case tree.KindSec:
			ci, err := a.node(c)
			if err != nil {
				return err
			}
			s.work += ci.work * reps
			s.tasks += ci.tasks * reps
			s.all.merge(ci.all, reps)
			s.locks.merge(ci.locks, reps)
			// Counted one after another even where nowait sections
			// overlap: at most that many lie on one path.
			s.forks += reps * ci.forks
			if c.Nowait && !s.joinAllNowait {
				// Repetition j's tasks end at cur + j·strand + span; the
				// last one ends last.
				end := s.cur + (reps-1)*ci.strand + ci.span
				bend := s.bcur + float64(reps-1)*ci.bstrand + ci.bspan
				if !s.hasPend || end > s.pend {
					s.pend, s.hasPend = end, true
					s.pendPath = mergePath(s.curPath, strandPath(ci, c, a), reps-1)
					s.pendPath = mergePath(s.pendPath, ci.path, 1)
					s.pendSelf = s.curSelf
				}
				s.bpend = max(s.bpend, bend)
				s.cur += reps * ci.strand
				s.bcur += float64(reps) * ci.bstrand
				s.curPath = mergePath(s.curPath, strandPath(ci, c, a), reps)
				continue
			}
			// A barrier: the first repetition also waits for pending
			// nowait work.
			if s.hasPend && s.pend > s.cur+ci.span {
				s.cur, s.curPath, s.curSelf = s.pend, s.pendPath, s.pendSelf
				s.curPath = mergePath(s.curPath, ci.path, reps-1)
				s.cur += (reps - 1) * ci.span
			} else {
				s.cur += reps * ci.span
				s.curPath = mergePath(s.curPath, ci.path, reps)
			}
			s.bcur = max(s.bcur+ci.bspan, s.bpend) + float64(reps-1)*ci.bspan
			s.hasPend, s.pend, s.pendPath, s.pendSelf, s.bpend = false, 0, nil, 0, 0
		default:
			return fmt.Errorf("%s node inside %s %q", c.Kind, n.Kind, n.Name)
		}
	}
	if s.hasPend && s.pend > s.cur {
		s.cur, s.curPath, s.curSelf = s.pend, s.pendPath, s.pendSelf
	}
	s.bcur = max(s.bcur, s.bpend)
	return nil
}

// strandPath is the path share of a section instance whose strand alone
// is on the critical path.
func strandPath(ci *info, c *tree.Node, a *analyzer) []pathEnt {
	if ci.strand == 0 {
		return nil
	}
	return []pathEnt{{r: a.region(RegionName(c)), on: ci.strand, self: ci.strand}}
}

// root analyzes the root: its children in series, every section joined.
func (a *analyzer) root(n *tree.Node) (*info, error) {
	if n.Kind != tree.KindRoot {
		return nil, fmt.Errorf("tree root is a %s node", n.Kind)
	}
	a.nodes++
	s := series{joinAllNowait: true}
	hasLeaves := false
	for _, c := range n.Children {
		if c == nil {
			return nil, fmt.Errorf("root has a nil child")
		}
		reps := c.Reps()
		one := &tree.Node{Kind: tree.KindRoot, Children: []*tree.Node{c}}
		before := s
		if err := a.compose(one, &s); err != nil {
			return nil, err
		}
		switch c.Kind {
		case tree.KindSec:
			ci := a.memo[c]
			sec := Section{
				Name: c.Name, Index: len(a.sections) + 1, Count: reps,
				WorkNs:         ci.work * reps,
				SpanNs:         ci.span * reps,
				BurdenedSpanNs: int64(math.Round(ci.bspan * float64(reps))),
				Parallelism:    ratio(ci.work, ci.span),
			}
			for _, l := range ci.locks {
				sec.MaxLockNs = max(sec.MaxLockNs, l.ns*reps)
			}
			a.sections = append(a.sections, sec)
			a.top = append(a.top, topItem{
				work: float64(sec.WorkNs), span: float64(sec.SpanNs),
				maxLock: float64(sec.MaxLockNs),
			})
		default:
			hasLeaves = true
			a.top = append(a.top, topItem{serial: float64(s.cur - before.cur)})
		}
	}
	in := &info{
		work: s.work, span: s.cur, bspan: s.bcur, forks: s.forks, tasks: s.tasks,
		path: s.curPath, all: s.all.sorted(), locks: s.locks.sorted(),
	}
	if hasLeaves {
		r := a.region(SerialRegion)
		in.all = mergeAll(in.all, []allEnt{{r: r, inst: 1, work: s.self, span: s.self, self: s.self}}, 1)
		in.path = mergePath(in.path, []pathEnt{{r: r, on: s.curSelf, self: s.curSelf}}, 1)
	}
	return in, nil
}

// node analyzes one instance of a Sec or Task node, memoized.
func (a *analyzer) node(n *tree.Node) (*info, error) {
	if in, ok := a.memo[n]; ok {
		return in, nil
	}
	a.nodes++
	var in *info
	var err error
	switch n.Kind {
	case tree.KindSec:
		in, err = a.section(n)
	case tree.KindTask:
		in, err = a.task(n)
	default:
		err = fmt.Errorf("unexpected %s node", n.Kind)
	}
	if err != nil {
		return nil, err
	}
	a.memo[n] = in
	return in, nil
}

func (a *analyzer) task(n *tree.Node) (*info, error) {
	var s series
	if err := a.compose(n, &s); err != nil {
		return nil, err
	}
	r := a.region(RegionName(n))
	in := &info{work: s.work, span: s.cur, bspan: s.bcur, forks: s.forks, tasks: s.tasks, locks: s.locks.sorted()}
	in.path = ownPath(s.curPath, r, s.curSelf, s.cur)
	in.all = ownAll(s.all.sorted(), r, s.self, s.work, s.cur)
	return in, nil
}

func (a *analyzer) section(n *tree.Node) (*info, error) {
	r := a.region(RegionName(n))
	in := &info{}
	var prefix, self int64
	var bprefix float64
	var best, bestPrefix int64 = 0, 0
	var bbest float64
	var bestPath []pathEnt
	var all allSum
	var locks lockSum
	for _, c := range n.Children {
		if c == nil {
			return nil, fmt.Errorf("section %q has a nil child", n.Name)
		}
		reps := c.Reps()
		switch c.Kind {
		case tree.KindU, tree.KindL:
			if c.Len < 0 {
				return nil, fmt.Errorf("%s node with negative length %d", c.Kind, c.Len)
			}
			w := c.Len * reps
			prefix += w
			bprefix += a.leafCost(c) * float64(reps)
			self += w
			in.work += w
			if c.Kind == tree.KindL {
				locks.merge([]lockEnt{lockOf(c)}, reps)
			}
		case tree.KindTask:
			ci, err := a.node(c)
			if err != nil {
				return nil, err
			}
			in.work += ci.work * reps
			in.tasks += (ci.tasks + 1) * reps
			all.merge(ci.all, reps)
			locks.merge(ci.locks, reps)
			// All reps start after the same prefix; one of them is on
			// the path.
			if cand := prefix + ci.span; cand > best || bestPath == nil {
				best, bestPrefix, bestPath = cand, prefix, ci.path
			}
			bbest = max(bbest, bprefix+a.taskCost+ci.bspan)
			in.forks = max(in.forks, ci.forks)
		default:
			return nil, fmt.Errorf("%s node inside section %q", c.Kind, n.Name)
		}
	}
	in.strand, in.bstrand = prefix, bprefix
	var path []pathEnt
	var pathSelf int64
	if prefix >= best {
		in.span, pathSelf = prefix, prefix
	} else {
		in.span, pathSelf, path = best, bestPrefix, bestPath
	}
	// A forked team's other workers start late by the wake-up latency
	// (its median), the last one forked by the runnext back-off too:
	// charged with the fork, as the emulators do.
	in.bspan = max(bprefix, bbest) + max(a.ov.ForkNs, 0) + a.ov.LateStartNs()
	in.forks++
	if !n.Nowait {
		in.bspan += max(a.ov.JoinNs, 0)
	}
	in.path = ownPath(path, r, pathSelf, in.span)
	in.all = ownAll(all.sorted(), r, self, in.work, in.span)
	in.locks = locks.sorted()
	return in, nil
}

// ownPath adds a node's own share to the path of its instance: self for
// its leaves on the path, and the whole span inside it (replacing what a
// nested instance of the same region counted).
func ownPath(p []pathEnt, r regionID, self, span int64) []pathEnt {
	out := mergePath(nil, p, 1)
	i, found := slices.BinarySearchFunc(out, r, func(e pathEnt, r regionID) int { return cmp.Compare(e.r, r) })
	if found {
		out[i].self += self
		out[i].on = span
		return out
	}
	return slices.Insert(out, i, pathEnt{r: r, on: span, self: self})
}

// ownAll is ownPath for the all-instances profile.
func ownAll(p []allEnt, r regionID, self, work, span int64) []allEnt {
	out := mergeAll(nil, p, 1)
	i, found := slices.BinarySearchFunc(out, r, func(e allEnt, r regionID) int { return cmp.Compare(e.r, r) })
	if found {
		out[i].self += self
		out[i].inst, out[i].work, out[i].span = 1, work, span
		return out
	}
	return slices.Insert(out, i, allEnt{r: r, inst: 1, work: work, span: span, self: self})
}

// mergeScaled returns a new slice holding x + m·y, where x and y are
// sorted by key: add(e, f, m) combines an entry e of x with the entry f
// of y of the same key (e is the zero entry when x has none) and must
// keep f's key.
func mergeScaled[E any, K cmp.Ordered](x, y []E, m int64, key func(E) K, add func(e, f E, m int64) E) []E {
	if m == 0 || len(y) == 0 {
		return x
	}
	var zero E
	out := make([]E, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || (i < len(x) && key(x[i]) < key(y[j])):
			out = append(out, x[i])
			i++
		case i == len(x) || key(y[j]) < key(x[i]):
			out = append(out, add(zero, y[j], m))
			j++
		default:
			out = append(out, add(x[i], y[j], m))
			i++
			j++
		}
	}
	return out
}

// mergePath returns a new slice: x + m·y.
func mergePath(x, y []pathEnt, m int64) []pathEnt {
	return mergeScaled(x, y, m, func(e pathEnt) regionID { return e.r }, func(e, f pathEnt, m int64) pathEnt {
		return pathEnt{r: f.r, on: e.on + m*f.on, self: e.self + m*f.self}
	})
}

// mergeAll returns a new slice: x + m·y.
func mergeAll(x, y []allEnt, m int64) []allEnt {
	return mergeScaled(x, y, m, allEnt.key, allEnt.plus)
}

// sum accumulates x + Σ mᵢ·yᵢ of lists sorted by key in a map, and
// sorts once: merging list after list into a sorted slice would copy
// the whole slice each time, quadratic in the distinct keys (a loop
// whose tasks each take a lock of their own). The zero sum is empty.
type sum[E keyed[E, K], K cmp.Ordered] map[K]E

// keyed is an entry of a sum: its key, and e + m·f for an f of its key
// (e may be the zero entry).
type keyed[E any, K cmp.Ordered] interface {
	key() K
	plus(f E, m int64) E
}

// merge adds m·y.
func (s *sum[E, K]) merge(y []E, m int64) {
	if m == 0 || len(y) == 0 {
		return
	}
	if *s == nil {
		*s = make(sum[E, K], len(y))
	}
	for _, f := range y {
		k := f.key()
		(*s)[k] = (*s)[k].plus(f, m)
	}
}

// sorted returns the sum as a list sorted by key.
func (s sum[E, K]) sorted() []E {
	if len(s) == 0 {
		return nil
	}
	out := make([]E, 0, len(s))
	for _, e := range s {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b E) int { return cmp.Compare(a.key(), b.key()) })
	return out
}

// lockSum and allSum are sums of lock and region entries.
type (
	lockSum = sum[lockEnt, int]
	allSum  = sum[allEnt, regionID]
)

func (e lockEnt) key() int { return e.id }
func (e lockEnt) plus(f lockEnt, m int64) lockEnt {
	return lockEnt{id: f.id, ns: e.ns + m*f.ns, n: e.n + m*f.n, idx: e.idx + m*f.idx}
}
func (e allEnt) key() regionID { return e.r }
func (e allEnt) plus(f allEnt, m int64) allEnt {
	return allEnt{r: f.r, inst: e.inst + m*f.inst, work: e.work + m*f.work, span: e.span + m*f.span, self: e.self + m*f.self}
}

// Label names a top-level section for a table: its name, and its index
// ("lu.rows #12") when other top-level sections share the name.
func (a *Analysis) Label(s Section) string {
	for _, o := range a.Sections {
		if o.Name == s.Name && o.Index != s.Index {
			return fmt.Sprintf("%s #%d", s.Name, s.Index)
		}
	}
	return s.Name
}
