package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("cg", NewCG)

// CG is a CG-like sparse kernel in the spirit of NPB CG: a few iterations
// of a sparse matrix-vector product q = A·p (CSR, random column pattern,
// a matrix far larger than the last-level cache) with the dot products
// p·q and q·q, then the vector updates x += α·p and p = q/‖q‖. Each
// iteration has two top-level sections, both streaming memory.
//
// The serial version annotates the dot-product reduction as what an
// OpenMP critical section would be: each row block adds its partial sums
// to the shared ones under lock 1. The parallel version reduces without a
// lock, with per-worker partial sums added up after the loop.
type CG struct {
	n      int
	rowPtr []int32
	col    []int32
	val    []float64
	p0     []float64
	p, q   []float64
	x      []float64
	iters  int
	blocks int
	// pq and qq are the shared dot products of the current iteration.
	pq, qq float64
}

// cgNnzPerRow is the number of stored entries per row (the diagonal and
// random off-diagonal columns).
const cgNnzPerRow = 16

// NewCG returns the kernel for a matrix of 2.5·10^5·scale rows with 16
// entries each (48 MB of values and column indices at scale 1), 10
// iterations, 64 row blocks.
func NewCG(scale float64) Kernel {
	n := max(int(2.5e5*scale), 64)
	r := rand.New(rand.NewPCG(5, 6))
	k := &CG{n: n, rowPtr: make([]int32, n+1), col: make([]int32, 0, n*cgNnzPerRow),
		val: make([]float64, 0, n*cgNnzPerRow), p0: make([]float64, n),
		p: make([]float64, n), q: make([]float64, n), x: make([]float64, n), iters: 10, blocks: 64}
	for i := range n {
		k.col = append(k.col, int32(i))
		k.val = append(k.val, cgNnzPerRow+1) // diagonally dominant
		for range cgNnzPerRow - 1 {
			k.col = append(k.col, int32(r.IntN(n)))
			k.val = append(k.val, r.Float64()-0.5)
		}
		k.rowPtr[i+1] = int32(len(k.col))
		k.p0[i] = 1 + r.Float64()
	}
	return k
}

// Name implements Kernel.
func (k *CG) Name() string { return "cg" }

// Describe implements Kernel.
func (k *CG) Describe() string {
	return fmt.Sprintf("CG-like: %d iterations of a sparse matrix-vector product (%d rows, %d nonzeros, %d MB) and dot products over %d row blocks; memory-bound, reduction under a lock",
		k.iters, k.n, len(k.val), 12*len(k.val)/1000000, k.blocks)
}

// Schedule implements Kernel: static, as NPB CG's OpenMP loops.
func (k *CG) Schedule() par.Schedule { return par.Schedule{Policy: par.Static} }

// Reset implements Kernel.
func (k *CG) Reset() {
	copy(k.p, k.p0)
	clear(k.q)
	clear(k.x)
	k.pq, k.qq = 0, 0
}

func (k *CG) rows(blk int) (lo, hi int) { return blk * k.n / k.blocks, (blk + 1) * k.n / k.blocks }

// spmv computes q = A·p over the rows of block blk and returns that
// block's parts of p·q and q·q.
func (k *CG) spmv(blk int) (pq, qq float64) {
	lo, hi := k.rows(blk)
	for i := lo; i < hi; i++ {
		s := 0.0
		for j := k.rowPtr[i]; j < k.rowPtr[i+1]; j++ {
			s += k.val[j] * k.p[k.col[j]]
		}
		k.q[i] = s
		pq += k.p[i] * s
		qq += s * s
	}
	return pq, qq
}

// update does x += α·p and p = q·inv over the rows of block blk.
func (k *CG) update(blk int, alpha, inv float64) {
	lo, hi := k.rows(blk)
	for i := lo; i < hi; i++ {
		k.x[i] += alpha * k.p[i]
		k.p[i] = k.q[i] * inv
	}
}

// Serial implements Kernel.
func (k *CG) Serial() {
	for range k.iters {
		k.pq, k.qq = 0, 0
		annotate.SecBegin("cg.spmv")
		for blk := range k.blocks {
			annotate.Task("cg.rows", func() {
				pq, qq := k.spmv(blk)
				annotate.Lock(1, func() {
					k.pq += pq
					k.qq += qq
				})
			})
		}
		annotate.SecEnd(false)
		alpha, inv := k.pq/k.qq, 1/math.Sqrt(k.qq)
		annotate.SecBegin("cg.update")
		for blk := range k.blocks {
			annotate.Task("cg.axpy", func() { k.update(blk, alpha, inv) })
		}
		annotate.SecEnd(false)
	}
}

// partial is one worker's dot-product sums, padded to a cache line of
// its own so workers do not share lines.
type partial struct {
	pq, qq float64
	_      [6]float64
}

// Parallel implements Kernel: par.ForWorker over the row blocks with
// per-worker partial sums (no lock), added up after each loop.
func (k *CG) Parallel(threads int, s par.Schedule) {
	parts := make([]partial, max(threads, k.blocks)) // spawn: worker = block
	for range k.iters {
		clear(parts)
		par.ForWorker(k.blocks, threads, s, func(w, blk int) {
			pq, qq := k.spmv(blk)
			parts[w].pq += pq
			parts[w].qq += qq
		})
		k.pq, k.qq = 0, 0
		for _, p := range parts {
			k.pq += p.pq
			k.qq += p.qq
		}
		alpha, inv := k.pq/k.qq, 1/math.Sqrt(k.qq)
		par.For(k.blocks, threads, s, func(blk int) { k.update(blk, alpha, inv) })
	}
}

// Check implements Kernel: the same iterations computed plainly (whole
// vectors, one sum each) must give the same x and p, up to the rounding
// of differently ordered sums.
func (k *CG) Check() error {
	n := k.n
	p, q, x := append([]float64(nil), k.p0...), make([]float64, n), make([]float64, n)
	for range k.iters {
		pq, qq := 0.0, 0.0
		for i := range n {
			s := 0.0
			for j := k.rowPtr[i]; j < k.rowPtr[i+1]; j++ {
				s += k.val[j] * p[k.col[j]]
			}
			q[i] = s
			pq += p[i] * s
			qq += s * s
		}
		alpha, inv := pq/qq, 1/math.Sqrt(qq)
		for i := range n {
			x[i] += alpha * p[i]
			p[i] = q[i] * inv
		}
	}
	for i := range n {
		if !cgClose(k.x[i], x[i]) {
			return fmt.Errorf("x[%d] = %.17g, want %.17g", i, k.x[i], x[i])
		}
		if !cgClose(k.p[i], p[i]) {
			return fmt.Errorf("p[%d] = %.17g, want %.17g", i, k.p[i], p[i])
		}
	}
	return nil
}

func cgClose(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}
