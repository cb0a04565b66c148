package validate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/par"
	"golang.org/x/sys/cpu"
)

// The generated tests.
const (
	// Test1 is the paper's figure 9: one parallel loop with workload
	// imbalance and two optional critical sections.
	Test1 = "test1"
	// Test2 is the paper's figure 10: an outer loop whose iterations run
	// a Test1 loop, either as frequent inner-loop parallelism (the outer
	// loop serial) or as nested parallelism (the outer loop parallel too).
	Test2 = "test2"
	// Fine is a fine-grained loop: 10^4 to 10^6 tasks of 50 ns to 2 µs,
	// about half of the samples adding into a shared total under one
	// short critical section: the loop a Go programmer tries first.
	Fine = "fine"
)

// Shape is a per-iteration workload pattern (the paper's
// ComputeOverhead).
type Shape uint8

// The workload shapes.
const (
	// Uniform gives every iteration the same work.
	Uniform Shape = iota
	// Random draws every iteration's work uniformly between a minimum
	// and a maximum.
	Random
	// Increasing grows the work linearly with the iteration number
	// (a regular diagonal, as in a triangular loop nest).
	Increasing
	// Decreasing shrinks it linearly.
	Decreasing
	// Mixed splits the loop into 2 to 4 consecutive parts, each with
	// one of the other shapes.
	Mixed
	numShapes
)

var shapeNames = [...]string{"uniform", "random", "increasing", "decreasing", "mixed"}

// String returns the shape's name.
func (s Shape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return fmt.Sprintf("Shape(%d)", uint8(s))
}

// Lock ids used by the generated programs (the two critical sections of
// figure 9, shared by every loop of a program).
const (
	lock1 = 1
	lock2 = 2
)

// Iter is one iteration of a Test1 loop (figure 9): a delay, optionally
// a critical section under lock 1, a delay, optionally one under lock 2,
// and a delay. Lengths are nanoseconds of spinning (of computation for
// D1 and D3 in a Loop that computes, Loop.Compute); L1 (L2) is zero when
// the iteration does not take lock 1 (2).
type Iter struct {
	D1, L1, D2, L2, D3 int64
}

// Work returns the iteration's total work in nanoseconds.
func (it Iter) Work() int64 { return it.D1 + it.L1 + it.D2 + it.L2 + it.D3 }

// Loop is a Test1 loop: its iterations in order.
type Loop struct {
	Iters []Iter
	// Compute has each iteration compute its first and last delays
	// (spin.Work, the first on the iteration's index, the last on what
	// the first computed) instead of spinning them, as the body of a
	// fine-grained loop computes: next to tasks of a few hundred
	// nanoseconds, what a dynamic loop's fetch costs depends on the
	// work on either side of it, and a spin hides part of it. The
	// critical sections and the middle delay spin, as the locks' costs
	// were measured beside.
	Compute bool
	// zero counts computed delays that mixed to 0, which none does;
	// reading their results keeps them from being optimized away.
	zero atomic.Int64
}

// first runs iteration i's first delay, it.D1, and returns what its
// last computes on: computed on the index with Compute, spun once the
// fetch of the index has completed (spin.ForOrdered) without.
func (l *Loop) first(i int, it Iter) uint64 {
	if l.Compute {
		return spin.Work(it.D1, uint64(i)+1)
	}
	spin.ForOrdered(it.D1)
	return 1
}

// last runs an iteration's last delay, it.D3, on x from first:
// computed with Compute, spun without.
func (l *Loop) last(it Iter, x uint64) {
	if !l.Compute {
		spin.For(it.D3)
		return
	}
	if spin.Work(it.D3, x) == 0 {
		l.zero.Add(1)
	}
}

// Work returns the loop's total work in nanoseconds.
func (l *Loop) Work() int64 {
	var w int64
	for _, it := range l.Iters {
		w += it.Work()
	}
	return w
}

// Outer is one iteration of Test2's outer loop (figure 10): a delay A,
// the inner Test1 loop when this iteration has one, and a delay B.
type Outer struct {
	A, B  int64
	Inner *Loop
}

// Program is one generated sample: a complete description, so the
// annotated serial version and the real parallel version do exactly the
// same work. Generate makes it from a seed.
type Program struct {
	// Test is Test1 or Test2; Seed the seed it was generated from.
	Test string
	Seed uint64
	// Desc says in a few words what was drawn (shape, trip counts,
	// lock probabilities).
	Desc string
	// Loop is the Test1 or Fine loop (nil for Test2).
	Loop *Loop
	// Outer is Test2's outer loop; Nested says whether it is a parallel
	// loop (nested parallelism) or a serial loop around parallel inner
	// loops (inner-loop parallelism).
	Outer  []Outer
	Nested bool
	// sums are the totals the critical sections of lock1 and lock2 add
	// into, each on a cache line of its own, as the data a lock guards
	// is: the critical section moves the lock's line and its data's.
	sums [2]guarded
}

// paddedMutex is a lock on a cache line of its own, as ff and syn take
// every lock to be: a bare [2]sync.Mutex puts both locks on one line,
// and a small allocation shares its line with whatever the heap packs
// beside it (the parallel loop's own counter, say), so taking one would
// also move the line of the other.
type paddedMutex struct {
	_ cpu.CacheLinePad
	sync.Mutex
	_ cpu.CacheLinePad
}

// guarded is a total on a cache line of its own.
type guarded struct {
	_ [64]byte
	n int64
	_ [56]byte
}

// Work returns the program's total work in nanoseconds.
func (p *Program) Work() int64 {
	if p.Loop != nil {
		return p.Loop.Work()
	}
	var w int64
	for _, o := range p.Outer {
		w += o.A + o.B
		if o.Inner != nil {
			w += o.Inner.Work()
		}
	}
	return w
}

// Tasks returns the number of tasks (loop iterations run as tasks) in
// the program.
func (p *Program) Tasks() int {
	if p.Loop != nil {
		return len(p.Loop.Iters)
	}
	n := 0
	if p.Nested {
		n = len(p.Outer)
	}
	for _, o := range p.Outer {
		if o.Inner != nil {
			n += len(o.Inner.Iters)
		}
	}
	return n
}

// Generation ranges. A sample's serial time is drawn between
// minWorkNs and maxWorkNs (times the scale); most tasks are at least
// minTaskNs long, and a few samples use short tasks (shortTaskNs) to
// stress the overheads of the parallel constructs.
const (
	minWorkNs   = 10e6
	maxWorkNs   = 30e6
	minTaskNs   = 8e3
	shortTaskNs = 2e3
	shortProb   = 0.15
	minDelayNs  = 50
)

// Generate returns the sample of test (Test1 or Test2) drawn from seed.
// scale multiplies all lengths (1 gives samples of 10 to 30 ms of serial
// work; the smoke test uses much less). The same test, seed and scale
// always give the same program.
func Generate(test string, seed uint64, scale float64) (*Program, error) {
	if err := canGenerate(test, scale); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	g := gen{r: r, scale: scale}
	p := &Program{Test: test, Seed: seed}
	switch test {
	case Test1:
		p.Loop, p.Desc = g.test1()
	case Test2:
		p.Outer, p.Nested, p.Desc = g.test2()
	case Fine:
		p.Loop, p.Desc = g.fine()
	}
	return p, nil
}

// canGenerate returns the error Generate gives for test and scale
// whatever the seed, or nil where it makes a sample.
func canGenerate(test string, scale float64) error {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return fmt.Errorf("generating %s sample: scale %g must be positive", test, scale)
	}
	switch test {
	case Test1, Test2, Fine:
		return nil
	}
	return fmt.Errorf("unknown test %q (want %s, %s or %s)", test, Test1, Test2, Fine)
}

type gen struct {
	r     *rand.Rand
	scale float64
}

// logUniform draws an integer log-uniformly from [lo, hi].
func (g gen) logUniform(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	v := math.Exp(math.Log(float64(lo)) + g.r.Float64()*(math.Log(float64(hi)+1)-math.Log(float64(lo))))
	return min(max(int(v), lo), hi)
}

// between draws a float uniformly from [lo, hi).
func (g gen) between(lo, hi float64) float64 { return lo + g.r.Float64()*(hi-lo) }

// taskNs draws the typical task length: mostly minTaskNs, sometimes
// shortTaskNs.
func (g gen) taskNs() float64 {
	if g.r.Float64() < shortProb {
		return shortTaskNs * g.scale
	}
	return minTaskNs * g.scale
}

// shape returns n weights with the given shape, between 1 and ratio
// (ratio² for Mixed, whose parts have their own levels).
func (g gen) shape(s Shape, n int, ratio float64) []float64 {
	w := make([]float64, n)
	switch s {
	case Uniform:
		for i := range w {
			w[i] = 1
		}
	case Random:
		for i := range w {
			w[i] = g.between(1, ratio)
		}
	case Increasing, Decreasing:
		for i := range w {
			f := 0.5
			if n > 1 {
				f = float64(i) / float64(n-1)
			}
			if s == Decreasing {
				f = 1 - f
			}
			w[i] = 1 + (ratio-1)*f
		}
	case Mixed:
		parts := 2 + g.r.IntN(3)
		lo := 0
		for p := 0; p < parts; p++ {
			hi := n * (p + 1) / parts
			sub := g.shape(Shape(g.r.IntN(int(Mixed))), hi-lo, g.between(1, ratio))
			level := g.between(1, ratio) // each part has its own level
			for i, v := range sub {
				w[lo+i] = v * level
			}
			lo = hi
		}
	}
	return w
}

// locks draws how an iteration's work splits into the five parts of
// figure 9 and how often each lock is taken.
type lockPlan struct {
	frac   [5]float64 // d1, l1, d2, l2, d3 fractions of the iteration's work
	p1, p2 float64    // probability of taking lock 1 and lock 2
}

func (g gen) lockPlan() lockPlan {
	var lp lockPlan
	// One sample in five has no critical section; the others have one
	// or two, taken with a random probability (often always), each
	// holding up to half the iteration: high contention is possible.
	mode := g.r.IntN(5)
	var l1, l2 float64
	if mode >= 1 {
		l1 = g.between(0.01, 0.5)
		lp.p1 = 1
		if g.r.IntN(2) == 0 {
			lp.p1 = g.between(0.05, 1)
		}
	}
	if mode >= 3 {
		l2 = g.between(0.01, 0.4)
		lp.p2 = 1
		if g.r.IntN(2) == 0 {
			lp.p2 = g.between(0.05, 1)
		}
	}
	rest := 1 - l1 - l2
	a, b, c := g.r.Float64()+0.05, g.r.Float64()+0.05, g.r.Float64()+0.05
	sum := a + b + c
	lp.frac = [5]float64{rest * a / sum, l1, rest * b / sum, l2, rest * c / sum}
	return lp
}

// loop makes a Test1 loop of n iterations with the given per-iteration
// weights, lock plan and total work in nanoseconds.
func (g gen) loop(weights []float64, lp lockPlan, totalNs float64) *Loop {
	type raw struct {
		w      float64
		t1, t2 bool
	}
	rs := make([]raw, len(weights))
	var sum float64
	for i, w := range weights {
		rs[i] = raw{w: w, t1: g.r.Float64() < lp.p1, t2: g.r.Float64() < lp.p2}
		f := lp.frac[0] + lp.frac[2] + lp.frac[4]
		if rs[i].t1 {
			f += lp.frac[1]
		}
		if rs[i].t2 {
			f += lp.frac[3]
		}
		sum += w * f
	}
	k := totalNs / sum
	ns := func(v float64) int64 { return max(int64(math.Round(v)), minDelayNs) }
	l := &Loop{Iters: make([]Iter, len(rs))}
	for i, x := range rs {
		unit := x.w * k
		it := Iter{D1: ns(unit * lp.frac[0]), D2: ns(unit * lp.frac[2]), D3: ns(unit * lp.frac[4])}
		if x.t1 {
			it.L1 = ns(unit * lp.frac[1])
		}
		if x.t2 {
			it.L2 = ns(unit * lp.frac[3])
		}
		l.Iters[i] = it
	}
	return l
}

// String implements fmt.Stringer.
func (lp lockPlan) String() string {
	var parts []string
	if lp.frac[1] > 0 {
		parts = append(parts, fmt.Sprintf("lock1 %.0f%%×p%.2f", 100*lp.frac[1], lp.p1))
	}
	if lp.frac[3] > 0 {
		parts = append(parts, fmt.Sprintf("lock2 %.0f%%×p%.2f", 100*lp.frac[3], lp.p2))
	}
	if len(parts) == 0 {
		return "no locks"
	}
	return strings.Join(parts, ", ")
}

func (g gen) test1() (*Loop, string) {
	total := g.between(minWorkNs, maxWorkNs) * g.scale
	task := g.taskNs()
	n := g.logUniform(8, max(8, min(4000, int(total/task))))
	s := Shape(g.r.IntN(int(numShapes)))
	ratio := g.between(1.5, 20)
	lp := g.lockPlan()
	l := g.loop(g.shape(s, n, ratio), lp, total)
	return l, fmt.Sprintf("%d iterations, %s ×%.1f, %s", n, s, ratio, lp)
}

// Fine-grained loop ranges: task lengths are drawn log-uniformly from
// fineMinNs to fineMaxNs (not scaled), the number of tasks follows the
// scaled total work, from fineMinTasks (at scale 1) to fineMaxTasks.
const (
	fineMinNs    = 50
	fineMaxNs    = 2000
	fineMinTasks = 10_000
	fineMaxTasks = 1_000_000
)

// fine makes a Fine loop: tasks of one typical length with a mild
// shape, and in half the samples one critical section of 10 to 30% of
// the task (20 ns at least), taken by every task or by a random share.
func (g gen) fine() (*Loop, string) {
	total := g.between(minWorkNs, maxWorkNs) * g.scale
	task := float64(g.logUniform(fineMinNs, fineMaxNs))
	n := min(max(int(total/task), int(fineMinTasks*min(g.scale, 1)), 16), fineMaxTasks)
	s := Shape(g.r.IntN(int(Mixed))) // no mixed: one level
	ratio := g.between(1, 3)
	weights := g.shape(s, n, ratio)
	var wsum float64
	for _, w := range weights {
		wsum += w
	}
	lockFrac, p := 0.0, 0.0
	if g.r.IntN(2) == 0 {
		lockFrac, p = g.between(0.1, 0.3), 1
		if g.r.IntN(2) == 0 {
			p = g.between(0.2, 1)
		}
	}
	l := &Loop{Iters: make([]Iter, n), Compute: true}
	var work float64
	for i, w := range weights {
		ns := total * w / wsum
		it := Iter{}
		if g.r.Float64() < p {
			it.L1 = max(int64(ns*lockFrac), 20)
		}
		rest := max(int64(ns)-it.L1, 2)
		it.D1 = rest / 2
		it.D3 = rest - it.D1
		l.Iters[i] = it
		work += float64(it.Work())
	}
	lock := "no lock"
	if p > 0 {
		lock = fmt.Sprintf("lock1 %.0f%%×p%.2f", 100*lockFrac, p)
	}
	return l, fmt.Sprintf("%d tasks of %.0f ns on average, %s ×%.1f, %s", n, work/float64(n), s, ratio, lock)
}

func (g gen) test2() ([]Outer, bool, string) {
	total := g.between(minWorkNs, maxWorkNs) * g.scale
	task := g.taskNs()
	nested := g.r.IntN(2) == 0
	// Outer trip count: enough that every outer iteration can hold an
	// inner loop of at least two tasks.
	k := g.logUniform(4, max(4, min(400, int(total/(4*task)))))
	s := Shape(g.r.IntN(int(numShapes)))
	ratio := g.between(1.5, 10)
	weights := g.shape(s, k, ratio)
	var wsum float64
	for _, w := range weights {
		wsum += w
	}
	// Probability that an outer iteration runs the inner loop
	// (do_nested_parallelism), and the inner loops' share of the work.
	pIn := 1.0
	if g.r.IntN(2) == 0 {
		pIn = g.between(0.5, 1)
	}
	inFrac := g.between(0.6, 0.97)
	aFrac := g.r.Float64()
	innerShape := Shape(g.r.IntN(int(numShapes)))
	innerRatio := g.between(1.5, 20)
	lp := g.lockPlan()
	maxInner := 0
	outer := make([]Outer, k)
	for i, w := range weights {
		ns := total * w / wsum
		o := Outer{}
		serial := ns
		if g.r.Float64() < pIn {
			inNs := ns * inFrac
			serial = ns - inNs
			n := g.logUniform(2, max(2, min(256, int(inNs/task))))
			maxInner = max(maxInner, n)
			o.Inner = g.loop(g.shape(innerShape, n, innerRatio), lp, inNs)
		}
		o.A = max(int64(serial*aFrac), minDelayNs)
		o.B = max(int64(serial*(1-aFrac)), minDelayNs)
		outer[i] = o
	}
	kind := "inner-loop"
	if nested {
		kind = "nested"
	}
	return outer, nested, fmt.Sprintf("%s, %d outer iterations (%s ×%.1f), inner loops p%.2f up to %d iterations (%s ×%.1f), %s",
		kind, k, s, ratio, pIn, maxInner, innerShape, innerRatio, lp)
}

// Serial runs the annotated serial version: every loop that the parallel
// version runs with par.For is a section, every iteration a task, every
// critical section a lock.
func (p *Program) Serial() {
	if p.Loop != nil {
		serialLoop(p.Loop, &p.sums)
		return
	}
	outer := func(o Outer) {
		spin.ForOrdered(o.A)
		if o.Inner != nil {
			serialLoop(o.Inner, &p.sums)
		}
		spin.For(o.B)
	}
	if !p.Nested {
		for _, o := range p.Outer {
			outer(o)
		}
		return
	}
	annotate.SecBegin("outer")
	for _, o := range p.Outer {
		annotate.Task("outer", func() { outer(o) })
	}
	annotate.SecEnd(false)
}

func serialLoop(l *Loop, sums *[2]guarded) {
	annotate.SecBegin("test1")
	for i, it := range l.Iters {
		annotate.Task("iter", func() {
			x := l.first(i, it)
			if it.L1 > 0 {
				annotate.LockBegin(lock1)
				spin.For(it.L1)
				sums[0].n++
				annotate.LockEnd(lock1)
			}
			spin.For(it.D2)
			if it.L2 > 0 {
				annotate.LockBegin(lock2)
				spin.For(it.L2)
				sums[1].n++
				annotate.LockEnd(lock2)
			}
			l.last(it, x)
		})
	}
	annotate.SecEnd(false)
}

// SerialPlain runs the serial version without its annotations: the same
// work in the same order, as the program runs once the annotations are
// taken out. It is the baseline of the real speedups: the recorded
// lengths leave the annotation calls out, and so does the parallel
// version, while the annotated serial version pays them (a few to tens
// of nanoseconds a task, which is 5-10% of a task of 150 ns).
func (p *Program) SerialPlain() {
	if p.Loop != nil {
		plainLoop(p.Loop, &p.sums)
		return
	}
	for _, o := range p.Outer {
		spin.ForOrdered(o.A)
		if o.Inner != nil {
			plainLoop(o.Inner, &p.sums)
		}
		spin.For(o.B)
	}
}

// plainLoop is serialLoop without the annotations.
func plainLoop(l *Loop, sums *[2]guarded) {
	for i, it := range l.Iters {
		x := l.first(i, it)
		if it.L1 > 0 {
			spin.For(it.L1)
			sums[0].n++
		}
		spin.For(it.D2)
		if it.L2 > 0 {
			spin.For(it.L2)
			sums[1].n++
		}
		l.last(it, x)
	}
}

// Parallel runs the real parallel version: every loop is a par.For with
// threads workers and schedule s (the inner loops of a nested Test2 form
// their own teams), and each critical section holds a real sync.Mutex.
func (p *Program) Parallel(threads int, s par.Schedule) {
	mu := new([2]paddedMutex)
	if p.Loop != nil {
		parallelLoop(p.Loop, threads, s, mu, &p.sums)
		return
	}
	outer := func(k int) {
		o := p.Outer[k]
		spin.ForOrdered(o.A)
		if o.Inner != nil {
			parallelLoop(o.Inner, threads, s, mu, &p.sums)
		}
		spin.For(o.B)
	}
	if p.Nested {
		par.For(len(p.Outer), threads, s, outer)
		return
	}
	for k := range p.Outer {
		outer(k)
	}
}

func parallelLoop(l *Loop, threads int, s par.Schedule, mu *[2]paddedMutex, sums *[2]guarded) {
	par.For(len(l.Iters), threads, s, func(i int) {
		it := l.Iters[i]
		x := l.first(i, it)
		if it.L1 > 0 {
			mu[0].Lock()
			spin.For(it.L1)
			sums[0].n++
			mu[0].Unlock()
		}
		spin.For(it.D2)
		if it.L2 > 0 {
			mu[1].Lock()
			spin.For(it.L2)
			sums[1].n++
			mu[1].Unlock()
		}
		l.last(it, x)
	})
}
