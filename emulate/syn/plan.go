package syn

import (
	"fmt"
	"math"
	"sync"

	"github.com/parallel-prophet/prophet/tree"
)

// A plan is a section compiled for replay: lengths already multiplied by
// the burden factor, lock ids resolved to mutexes, task runs indexed, so
// that the timed replay does nothing but walk and spin.

// itemKind says what one step of a task does.
type itemKind uint8

const (
	itemU     itemKind = iota // spin ns
	itemL                     // reps × (lock, spin ns, write the guarded data, unlock)
	itemSec                   // reps × nested section
	itemSetup                 // spin ns, once per worker (tree.Node.Setup)
)

type item struct {
	kind itemKind
	// indexed is set for an L item of an indexed critical section
	// (see guarded).
	indexed bool
	ns      int64 // burdened length (for U: of the whole run)
	reps    int64
	lk      *guarded
	sec     *secPlan
}

// guarded is a replayed lock and the data it guards: a critical section
// writes the data its lock guards, so where the lock moves between cores
// the data's line moves with it, as in the program and as calibrate
// measures LockMigrateNs. The data's lines are in other pairs of lines
// than the lock's (a core fetches a line's 128-byte pair together). A
// plain hold writes data[0], whose address is known before the Lock, so
// that a core fetches its line beside the lock's, as where a program's
// critical section adds to a fixed variable. An indexed hold
// (tree.Node.Indexed) writes one of eight lines that a counter on the
// lock's line picks, scrambled: its address is known only once the Lock
// has taken that line, so the data's move is paid inside the hold, and
// only where the line was last written on another core, as where a
// program's critical section indexes its data with what the task
// computed (a histogram's bin).
type guarded struct {
	mu   sync.Mutex
	slot uint64 // holds so far (indexed ones)
	_    [192 - 16]byte
	data [8 * 8]int64 // eight lines
	_    [128]byte
}

type taskPlan struct {
	items []item
	// setup is set when an item is per-worker setup.
	setup bool
}

// taskRun is a run of identical tasks starting at loop index start.
type taskRun struct {
	start int
	task  *taskPlan
}

type secPlan struct {
	pre, post []int64 // the section's own U lengths, before and after the loop
	setup     int64   // the section's own per-worker setup (tree.Node.Setup)
	runs      []taskRun
	n         int // number of tasks (loop iterations)
	work      int64
	gap       int64 // top level: serial time spun before each replay (Emulator.Sections)
}

// task returns the task at loop index i (0 ≤ i < n).
func (sp *secPlan) task(i int) *taskPlan {
	return sp.runs[sp.runAt(i)].task
}

// runAt returns the index of the run that holds loop index i (0 ≤ i <
// n): the last run with start ≤ i.
func (sp *secPlan) runAt(i int) int {
	runs := sp.runs
	lo, hi := 0, len(runs)-1
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		if runs[mid].start <= i {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// taskNext returns the task at loop index i, starting from the run
// *cur that the caller's previous index was in, and leaves *cur at the
// run of i. A worker's indices only grow under every worksharing
// schedule, so it mostly stays in its run or steps to the next one,
// where a search of all the runs for every task (with many runs, tens of
// nanoseconds and a few cache misses) would add to the replay a cost per
// task that the walking cost measured on one run does not have.
func (sp *secPlan) taskNext(i int, cur *int) *taskPlan {
	runs := sp.runs
	k := *cur
	if k >= len(runs) || runs[k].start > i {
		k = sp.runAt(i)
	} else {
		for steps := 0; k+1 < len(runs) && runs[k+1].start <= i; steps++ {
			if steps == 4 { // a jump, as to a static:C worker's next chunk
				k = sp.runAt(i)
				break
			}
			k++
		}
	}
	*cur = k
	return runs[k].task
}

// prefix returns the plan of the section's first tasks, as many as
// make up maxWork of work (at least one), with the section's own serial
// code before and after them; the whole plan where it is that short.
func (sp *secPlan) prefix(maxWork int64) *secPlan {
	if sp.work <= maxWork || sp.n == 0 {
		return sp
	}
	p := &secPlan{pre: sp.pre, post: sp.post, setup: sp.setup}
	p.work = sp.setup
	for _, ns := range sp.pre {
		p.work += ns
	}
	for _, ns := range sp.post {
		p.work += ns
	}
	for k, run := range sp.runs {
		end := sp.n
		if k+1 < len(sp.runs) {
			end = sp.runs[k+1].start
		}
		tw := taskWork(run.task)
		w := max(tw, 1)
		take := int64(end - run.start)
		if left := maxWork - p.work; take*w > left {
			take = max(left/w, 0)
		}
		if take == 0 && p.n > 0 {
			break
		}
		take = max(take, 1)
		p.runs = append(p.runs, taskRun{start: p.n, task: run.task})
		p.n += int(take)
		p.work += take * tw
		if p.work >= maxWork {
			break
		}
	}
	return p
}

// compiler builds plans, sharing the plan of a subtree that is shared in
// the tree.
type compiler struct {
	burden float64
	locks  map[int]*guarded
	secs   map[*tree.Node]*secPlan
	tasks  map[*tree.Node]*taskPlan
}

func compile(sec *tree.Node, burden float64) (*secPlan, error) {
	if burden <= 0 || math.IsNaN(burden) || math.IsInf(burden, 0) {
		return nil, fmt.Errorf("burden factor %v: must be a positive number", burden)
	}
	c := &compiler{
		burden: burden,
		locks:  map[int]*guarded{},
		secs:   map[*tree.Node]*secPlan{},
		tasks:  map[*tree.Node]*taskPlan{},
	}
	return c.sec(sec, 0)
}

// maxDepth bounds section nesting, so that a malformed (cyclic) tree is
// an error rather than a stack overflow.
const maxDepth = 10000

func (c *compiler) length(n *tree.Node, reps int64) (int64, error) {
	if n.Len < 0 {
		return 0, fmt.Errorf("%s node with negative length %d", n.Kind, n.Len)
	}
	return int64(math.Round(float64(n.Len) * float64(reps) * c.burden)), nil
}

func (c *compiler) sec(n *tree.Node, depth int) (*secPlan, error) {
	if sp, ok := c.secs[n]; ok {
		return sp, nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("section %q: sections nested more than %d deep", n.Name, maxDepth)
	}
	if n.Kind != tree.KindSec {
		return nil, fmt.Errorf("want a Sec node, got %s", n.Kind)
	}
	sp := &secPlan{}
	for _, ch := range n.Children {
		if ch == nil {
			return nil, fmt.Errorf("section %q has a nil child", n.Name)
		}
		switch ch.Kind {
		case tree.KindU:
			ns, err := c.length(ch, ch.Reps())
			if err != nil {
				return nil, fmt.Errorf("section %q: %w", n.Name, err)
			}
			if ch.Setup {
				sp.setup += ns
				sp.work += ns
				continue
			}
			if sp.n == 0 {
				sp.pre = append(sp.pre, ns)
			} else {
				sp.post = append(sp.post, ns)
			}
			sp.work += ns
		case tree.KindTask:
			tp, err := c.task(ch, depth)
			if err != nil {
				return nil, err // named where it was found
			}
			reps := ch.Reps()
			if reps > int64(math.MaxInt-sp.n) {
				return nil, fmt.Errorf("section %q: too many tasks", n.Name)
			}
			sp.runs = append(sp.runs, taskRun{start: sp.n, task: tp})
			sp.n += int(reps)
			sp.work += reps * taskWork(tp)
		default:
			return nil, fmt.Errorf("section %q holds a %s node; a section holds tasks and U nodes", n.Name, ch.Kind)
		}
	}
	c.secs[n] = sp
	return sp, nil
}

func (c *compiler) task(n *tree.Node, depth int) (*taskPlan, error) {
	if tp, ok := c.tasks[n]; ok {
		return tp, nil
	}
	tp := &taskPlan{}
	for _, ch := range n.Children {
		if ch == nil {
			return nil, fmt.Errorf("task %q has a nil child", n.Name)
		}
		switch ch.Kind {
		case tree.KindU:
			ns, err := c.length(ch, ch.Reps())
			if err != nil {
				return nil, fmt.Errorf("task %q: %w", n.Name, err)
			}
			k := itemU
			if ch.Setup {
				k, tp.setup = itemSetup, true
			}
			tp.items = append(tp.items, item{kind: k, ns: ns, reps: 1})
		case tree.KindL:
			ns, err := c.length(ch, 1)
			if err != nil {
				return nil, fmt.Errorf("task %q: %w", n.Name, err)
			}
			lk, ok := c.locks[ch.Lock]
			if !ok {
				lk = &guarded{}
				c.locks[ch.Lock] = lk
			}
			tp.items = append(tp.items, item{kind: itemL, indexed: ch.Indexed, ns: ns, reps: ch.Reps(), lk: lk})
		case tree.KindSec:
			sp, err := c.sec(ch, depth+1)
			if err != nil {
				return nil, err // named where it was found
			}
			tp.items = append(tp.items, item{kind: itemSec, reps: ch.Reps(), sec: sp})
		default:
			return nil, fmt.Errorf("task %q holds a %s node; a task holds U, L and Sec nodes", n.Name, ch.Kind)
		}
	}
	c.tasks[n] = tp
	return tp, nil
}

// taskWork is the burdened work of one instance of a task.
func taskWork(tp *taskPlan) int64 {
	var w int64
	for _, it := range tp.items {
		switch it.kind {
		case itemU, itemSetup:
			w += it.ns
		case itemL:
			w += it.ns * it.reps
		case itemSec:
			w += it.sec.work * it.reps
		}
	}
	return w
}
