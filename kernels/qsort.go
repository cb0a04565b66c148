package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("qsort", NewQsort)

// Qsort is a recursive quicksort (OmpSCR's QSort, written with Cilk in the
// paper): each partition step is followed by a section of two tasks, the
// recursive sorts of the two halves, so sections nest as deep as the
// recursion. Below a cutoff the halves are sorted serially.
type Qsort struct {
	orig, a []float64
	cutoff  int
}

// NewQsort returns a quicksort of 1.5·10^6·scale random numbers.
func NewQsort(scale float64) Kernel {
	n := int(1.5e6 * scale)
	if n < 16 {
		n = 16
	}
	r := rand.New(rand.NewPCG(3, 4))
	orig := make([]float64, n)
	for i := range orig {
		orig[i] = r.Float64()
	}
	return &Qsort{orig: orig, a: make([]float64, n), cutoff: 4096}
}

// Name implements Kernel.
func (q *Qsort) Name() string { return "qsort" }

// Describe implements Kernel.
func (q *Qsort) Describe() string {
	return fmt.Sprintf("recursive quicksort of %d numbers: nested sections of 2 tasks, one goroutine per task", len(q.a))
}

// Schedule implements Kernel: recursion spawns a goroutine per half.
func (q *Qsort) Schedule() par.Schedule { return par.Schedule{Policy: par.Spawn} }

// Reset implements Kernel.
func (q *Qsort) Reset() { copy(q.a, q.orig) }

// partition splits a around a median-of-three pivot (Hoare scheme) and
// returns the split point: a[:p] ≤ pivot ≤ a[p:].
func partition(a []float64) int {
	lo, mid, hi := a[0], a[len(a)/2], a[len(a)-1]
	pivot := math.Max(math.Min(lo, mid), math.Min(math.Max(lo, mid), hi))
	i, j := -1, len(a)
	for {
		for i++; a[i] < pivot; i++ {
		}
		for j--; a[j] > pivot; j-- {
		}
		if i >= j {
			return j + 1
		}
		a[i], a[j] = a[j], a[i]
	}
}

func (q *Qsort) serial(a []float64) {
	if len(a) <= q.cutoff {
		slices.Sort(a)
		return
	}
	p := partition(a)
	annotate.SecBegin("qsort.halves")
	annotate.Task("qsort.left", func() { q.serial(a[:p]) })
	annotate.Task("qsort.right", func() { q.serial(a[p:]) })
	annotate.SecEnd(false)
}

// Serial implements Kernel: the annotated serial version.
func (q *Qsort) Serial() {
	annotate.SecBegin("qsort")
	annotate.Task("qsort.all", func() { q.serial(q.a) })
	annotate.SecEnd(false)
}

func (q *Qsort) parallel(a []float64, threads int, s par.Schedule) {
	if len(a) <= q.cutoff {
		slices.Sort(a)
		return
	}
	p := partition(a)
	halves := [2][]float64{a[:p], a[p:]}
	par.For(2, threads, s, func(i int) { q.parallel(halves[i], threads, s) })
}

// Parallel implements Kernel: the same recursion with par.For over the
// two halves (spawn by default: a goroutine per half).
func (q *Qsort) Parallel(threads int, s par.Schedule) { q.parallel(q.a, threads, s) }

// Check implements Kernel.
func (q *Qsort) Check() error {
	if !slices.IsSorted(q.a) {
		return fmt.Errorf("not sorted")
	}
	return nil
}
