package tree

import "fmt"

// BuildOptions tune a Builder.
type BuildOptions struct {
	// Tolerance is the relative difference within which consecutive
	// same-shaped siblings merge into one run (default 0.05).
	Tolerance float64
	// SlackNs is an absolute difference in nanoseconds under which two
	// leaf lengths always count as equal (timer noise on tiny nodes).
	SlackNs int64
	// NoCompress turns compression off (every instance kept).
	NoCompress bool
}

// Builder builds a program tree from a stream of events, as the profiler
// sees them. It is not safe for concurrent use.
//
// (Interim implementation without compression; the compressing builder
// replaces it with the same API.)
type Builder struct {
	opt   BuildOptions
	root  *Node
	stack []*Node
	err   error
}

// NewBuilder returns a Builder with an open root.
func NewBuilder(opt BuildOptions) *Builder {
	if opt.Tolerance == 0 {
		opt.Tolerance = 0.05
	}
	root := &Node{Kind: KindRoot, Count: 1}
	return &Builder{opt: opt, root: root, stack: []*Node{root}}
}

func (b *Builder) top() *Node { return b.stack[len(b.stack)-1] }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// BeginSec opens a section inside the open root or task.
func (b *Builder) BeginSec(name string) {
	p := b.top()
	if p.Kind != KindRoot && p.Kind != KindTask {
		b.fail("section %q opened inside a %s", name, p.Kind)
		return
	}
	n := &Node{Kind: KindSec, Name: name, Count: 1}
	p.Children = append(p.Children, n)
	b.stack = append(b.stack, n)
}

// EndSec closes the open section; c (may be nil) holds its counters.
func (b *Builder) EndSec(nowait bool, c *Counters) {
	n := b.top()
	if n.Kind != KindSec {
		b.fail("section end while a %s is open", n.Kind)
		return
	}
	n.Nowait = nowait
	n.Counters = c
	b.stack = b.stack[:len(b.stack)-1]
}

// BeginTask opens a task inside the open section.
func (b *Builder) BeginTask(name string) {
	p := b.top()
	if p.Kind != KindSec {
		b.fail("task %q opened inside a %s", name, p.Kind)
		return
	}
	n := &Node{Kind: KindTask, Name: name, Count: 1}
	p.Children = append(p.Children, n)
	b.stack = append(b.stack, n)
}

// EndTask closes the open task.
func (b *Builder) EndTask() {
	n := b.top()
	if n.Kind != KindTask {
		b.fail("task end while a %s is open", n.Kind)
		return
	}
	b.stack = b.stack[:len(b.stack)-1]
}

// U adds ns nanoseconds of computation outside any lock to the open node;
// it joins a U node directly before it.
func (b *Builder) U(ns int64) {
	if ns <= 0 {
		return
	}
	p := b.top()
	if k := len(p.Children); k > 0 && p.Children[k-1].Kind == KindU {
		p.Children[k-1].Len += ns
		return
	}
	p.Children = append(p.Children, U(ns))
}

// L adds ns nanoseconds of computation holding lock id to the open task
// (or section, or root: code that runs serially but takes a lock).
func (b *Builder) L(id int, ns int64) {
	if ns < 0 {
		ns = 0
	}
	p := b.top()
	p.Children = append(p.Children, L(id, ns))
}

// Depth returns how many nodes are open below the root.
func (b *Builder) Depth() int { return len(b.stack) - 1 }

// Finish closes the tree and returns it. It fails if anything is still
// open or the events did not nest.
func (b *Builder) Finish(meta Meta) (*Tree, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.stack) != 1 {
		return nil, fmt.Errorf("%s %q still open", b.top().Kind, b.top().Name)
	}
	meta.Tolerance = b.opt.Tolerance
	return &Tree{Root: b.root, Meta: meta}, nil
}
