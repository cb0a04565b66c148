package tree

import (
	"fmt"
	"iter"
)

// Kind says what a Node stands for.
type Kind uint8

// The node kinds of a program tree (paper section IV-B).
const (
	// KindRoot is the whole program: top-level serial U nodes and
	// top-level Sec nodes, in program order.
	KindRoot Kind = iota
	// KindSec is a parallel section: its Tasks (and U nodes for time
	// spent inside the section but outside any task, run by the thread
	// that entered the section).
	KindSec
	// KindTask is one task of a section (a loop iteration, a spawned
	// call): U, L and nested Sec nodes in program order.
	KindTask
	// KindU is computation outside any lock.
	KindU
	// KindL is computation holding lock Lock.
	KindL
)

var kindNames = [...]string{"Root", "Sec", "Task", "U", "L"}

// String returns the kind's name as the paper writes it ("Sec", "U", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// IsLeaf reports whether nodes of this kind carry a length and no children.
func (k Kind) IsLeaf() bool { return k == KindU || k == KindL }

// Counters are the hardware counter readings of one top-level section,
// averaged over the times it ran. They feed the memory model.
type Counters struct {
	Instructions uint64 `json:"instructions"`
	Cycles       uint64 `json:"cycles"`
	LLCMisses    uint64 `json:"llc_misses"`
	// TimeNs is the wall time over which the counters were read.
	TimeNs int64 `json:"time_ns"`
	// Runs is how many executions of the section were averaged.
	Runs int64 `json:"runs"`
}

// Node is one node of a program tree.
//
// A node may stand for several consecutive identical-shaped siblings: Count
// is that repetition (run-length encoding), and every leaf below carries the
// mean length of the instances merged into it, so the total work of the tree
// is kept while only per-instance detail is approximated. A *Node may be
// shared by several parents (the dictionary of repeated subtrees); trees are
// read-only once built.
type Node struct {
	Kind Kind
	// Name is the section or task name given to SecBegin or TaskBegin.
	Name string
	// Nowait is true for a Sec whose end has no barrier.
	Nowait bool
	// Setup is true for a U node of per-worker setup
	// (annotate.SetupBegin): work the serial program does in every task,
	// or once before a section's tasks, that a parallel version does once
	// per worker (a scratch buffer, a sync.Pool get). Emulators charge it
	// once per worker that runs the section's tasks; the work and the
	// span count it where the serial program ran it.
	Setup bool
	// Indexed is true for an L node whose critical section updates data
	// the task picks by what it computed (annotate.LockIndexedBegin): a
	// histogram's bin, a table slot by hash, rather than one fixed
	// variable. Its address is known late, so where the lock comes from
	// another core the data's cache line moves inside the hold, not
	// beside the Lock (see the emulators).
	Indexed bool
	// Lock is the lock id of an L node.
	Lock int
	// Len is the net length in nanoseconds of one instance of a U or L
	// node (the mean over the instances merged into it).
	Len int64
	// Count is how many consecutive times this node repeats among its
	// siblings; always at least 1.
	Count int64
	// Children are the node's children in program order (not for leaves).
	Children []*Node
	// Counters holds hardware counters of a top-level Sec; nil when none
	// were collected.
	Counters *Counters

	// inst is the number of expanded instances merged into a leaf while
	// recording (used by the builder's running mean); sum is their exact
	// total. Both are zero in trees built by hand or read from a file.
	inst int64
	sum  int64
	// id is nonzero for a node that may be shared by several parents: a
	// node the builder's dictionary sealed, or a node a file referenced
	// more than once. Work and Totals memoize such nodes by pointer.
	id int64
	// acc holds the exact sums behind a builder-made Counters average.
	acc *counterAcc
}

// Shared reports whether n may have more than one parent: a node the
// builder's dictionary sealed, or a node a profile file referenced more
// than once. Code that copies or memoizes a tree by node can key on the
// shared nodes only; a hand-built tree that puts one node under several
// parents is still a valid tree, but such code treats each occurrence
// as its own node.
func (n *Node) Shared() bool { return n.id != 0 }

// Reps returns Count, treating 0 (a hand-built node that left it unset) as 1.
func (n *Node) Reps() int64 {
	if n.Count < 1 {
		return 1
	}
	return n.Count
}

// Expanded yields the node's children with runs expanded: a child with
// Count c is yielded c times (the same *Node each time).
func (n *Node) Expanded() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		for _, c := range n.Children {
			for i := int64(0); i < c.Reps(); i++ {
				if !yield(c) {
					return
				}
			}
		}
	}
}

// U returns a hand-built U node of length ns nanoseconds.
func U(ns int64) *Node { return &Node{Kind: KindU, Len: ns, Count: 1} }

// Setup returns a hand-built U node of per-worker setup (see
// Node.Setup) of length ns nanoseconds.
func Setup(ns int64) *Node { return &Node{Kind: KindU, Setup: true, Len: ns, Count: 1} }

// L returns a hand-built L node holding lock id for ns nanoseconds.
func L(id int, ns int64) *Node { return &Node{Kind: KindL, Lock: id, Len: ns, Count: 1} }

// IndexedL returns a hand-built L node of an indexed critical section
// (see Node.Indexed) holding lock id for ns nanoseconds.
func IndexedL(id int, ns int64) *Node {
	return &Node{Kind: KindL, Indexed: true, Lock: id, Len: ns, Count: 1}
}

// Task returns a hand-built Task node with the given children.
func Task(name string, children ...*Node) *Node {
	return &Node{Kind: KindTask, Name: name, Count: 1, Children: children}
}

// Sec returns a hand-built Sec node (with a barrier at its end) holding
// the given tasks (and U nodes).
func Sec(name string, children ...*Node) *Node {
	return &Node{Kind: KindSec, Name: name, Count: 1, Children: children}
}

// SecNowait is Sec without the barrier at the section's end.
func SecNowait(name string, children ...*Node) *Node {
	s := Sec(name, children...)
	s.Nowait = true
	return s
}

// Run marks n as standing for count consecutive repetitions and returns it.
func Run(count int64, n *Node) *Node {
	n.Count = count
	return n
}

// Tree is a whole program tree with what is known about how it was made.
type Tree struct {
	Root *Node
	Meta Meta
}

// New returns a tree whose root holds the given top-level nodes (U and Sec).
func New(children ...*Node) *Tree {
	return &Tree{Root: &Node{Kind: KindRoot, Count: 1, Children: children}}
}

// Meta describes the recording a tree came from.
type Meta struct {
	// Program is the recorded program's command line, if known.
	Program string `json:"program,omitempty"`
	// Recorded is when recording started (RFC 3339), if known.
	Recorded string `json:"recorded,omitempty"`
	// Clock names the clock used for timestamps.
	Clock string `json:"clock,omitempty"`
	// EventCostNs is the profiler's own per-event cost that was
	// subtracted from every length.
	EventCostNs float64 `json:"event_cost_ns,omitempty"`
	// MeasuredNs is the wall time of the recording, net of profiler
	// overhead, as the profiler measured it end to end.
	MeasuredNs int64 `json:"measured_ns,omitempty"`
	// Tolerance is the relative length tolerance used to merge runs.
	Tolerance float64 `json:"tolerance,omitempty"`
	// CountersNote says why hardware counters are missing, when they are.
	CountersNote string `json:"counters_note,omitempty"`
	// CPU is the recording machine's CPU model, if known.
	CPU string `json:"cpu,omitempty"`
	// Tool is the version of prophet's annotate package that recorded
	// the profile, if known (format version 2 on).
	Tool string `json:"tool,omitempty"`
	// PausedNs is how long the recording was paused (annotate.Pause):
	// the program ran that long outside the tree (format version 2 on).
	PausedNs int64 `json:"paused_ns,omitempty"`
	// Sites maps a region ("sec:NAME", "task:NAME") to the file:line
	// of the annotation that began it (the first place, where one name
	// is used at several), as the recorder saw it (format version 3 on).
	Sites map[string]string `json:"sites,omitempty"`
	// Probe is what the memory-bandwidth probe measured of the
	// program's top-level sections, nil when it did not run (format
	// version 4 on).
	Probe *MemoryProbe `json:"memory_probe,omitempty"`
}
