package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("lu", NewLU)

// LU is the LU reduction of OmpSCR (the paper's figure 1a): for each pivot
// k, the rows below it are updated in a parallel loop, so the work is
// triangular (inner-loop parallelism with shrinking trip counts). Each row
// update also folds the row's largest element into a shared growth
// statistic under a lock: a small critical section.
type LU struct {
	n      int
	orig   []float64
	m      []float64
	growth float64
	mu     sync.Mutex
}

// NewLU returns an LU reduction of an n×n diagonally dominant matrix with
// n = 500·scale^(1/3), so the work grows about linearly with scale.
func NewLU(scale float64) Kernel {
	n := int(500 * math.Cbrt(scale))
	if n < 4 {
		n = 4
	}
	r := rand.New(rand.NewPCG(1, 2))
	orig := make([]float64, n*n)
	for i := range n {
		for j := range n {
			orig[i*n+j] = r.Float64()
		}
		orig[i*n+i] += float64(n) // diagonally dominant: no pivoting needed
	}
	return &LU{n: n, orig: orig, m: make([]float64, n*n)}
}

// Name implements Kernel.
func (l *LU) Name() string { return "lu" }

// Describe implements Kernel.
func (l *LU) Describe() string {
	return fmt.Sprintf("LU reduction of a %d×%d matrix: inner-loop parallelism over rows, triangular work, one lock", l.n, l.n)
}

// Schedule implements Kernel: OmpSCR's LU uses schedule(static,1).
func (l *LU) Schedule() par.Schedule { return par.Schedule{Policy: par.StaticChunk, Chunk: 1} }

// Reset implements Kernel.
func (l *LU) Reset() {
	copy(l.m, l.orig)
	l.growth = 0
}

// row eliminates column k from row i and returns the row's largest
// remaining magnitude.
func (l *LU) row(k, i int) float64 {
	n, m := l.n, l.m
	pivot := m[k*n : k*n+n]
	r := m[i*n : i*n+n]
	f := r[k] / pivot[k]
	r[k] = f // the L factor is stored in place
	big := 0.0
	for j := k + 1; j < n; j++ {
		r[j] -= f * pivot[j]
		big = max(big, math.Abs(r[j]))
	}
	return big
}

// Serial implements Kernel: the annotated serial version.
func (l *LU) Serial() {
	for k := 0; k < l.n-1; k++ {
		annotate.SecBegin("lu.rows")
		for i := k + 1; i < l.n; i++ {
			annotate.Task("lu.row", func() {
				big := l.row(k, i)
				annotate.Lock(1, func() { l.growth = max(l.growth, big) })
			})
		}
		annotate.SecEnd(false)
	}
}

// Parallel implements Kernel: the same loop with par.For over the rows.
func (l *LU) Parallel(threads int, s par.Schedule) {
	for k := 0; k < l.n-1; k++ {
		par.For(l.n-k-1, threads, s, func(i int) {
			big := l.row(k, k+1+i)
			l.mu.Lock()
			l.growth = max(l.growth, big)
			l.mu.Unlock()
		})
	}
}

// Check implements Kernel: L·U must reproduce the original matrix.
func (l *LU) Check() error {
	n := l.n
	for _, i := range []int{0, n / 3, n - 1} {
		for _, j := range []int{0, n / 2, n - 1} {
			sum := 0.0
			for p := 0; p <= min(i, j); p++ {
				lip := 1.0
				if p < i {
					lip = l.m[i*n+p]
				}
				sum += lip * l.m[p*n+j]
			}
			if d := math.Abs(sum - l.orig[i*n+j]); d > 1e-6*float64(n) {
				return fmt.Errorf("(L·U)[%d][%d] = %g, want %g", i, j, sum, l.orig[i*n+j])
			}
		}
	}
	if l.growth <= 0 {
		return fmt.Errorf("growth statistic not computed")
	}
	return nil
}
