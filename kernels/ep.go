package kernels

import (
	"fmt"
	"math"
	"sync"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("ep", NewEP)

// NAS EP constants: the linear congruential generator
// x ← a·x mod 2^46 with a = 5^13, seed 271828183, and batches of
// 2^16 pairs.
const (
	epA       = 1220703125
	epSeed    = 271828183
	epMod     = 1<<46 - 1 // mask for mod 2^46
	epBatchLg = 16
	epBatch   = 1 << epBatchLg
	epBase    = 64 // batches at scale 1 (NAS M = 22)
	epBins    = 10
)

// epKernel is NAS EP: pairs of uniform numbers from the NAS generator
// become Gaussian pairs by the Marsaglia polar method; the pairs are
// counted in square annuli and their sums accumulated. Each batch of
// 2^16 pairs is a task; its counts are added to the totals inside a
// critical section (lock 1), as the OpenMP version's reduction.
type epKernel struct {
	batches int
	q       [epBins]int64
	sx, sy  float64
	refQ    *[epBins]int64 // reference counts (first Check)
	refSx   float64
	refSy   float64
	mu      sync.Mutex
}

// NewEP returns the EP kernel: 64 batches of 2^16 pairs (NAS M = 22) at
// scale 1; the batch count is proportional to scale.
func NewEP(scale float64) Kernel {
	return &epKernel{batches: max(int(math.Round(epBase*scale)), 1)}
}

// Name implements Kernel.
func (k *epKernel) Name() string { return "ep" }

// Describe implements Kernel.
func (k *epKernel) Describe() string {
	return fmt.Sprintf("NAS EP-like: %d batches of %d Gaussian pairs, counts reduced in a critical section", k.batches, epBatch)
}

// Schedule implements Kernel.
func (k *epKernel) Schedule() par.Schedule { return par.Schedule{Policy: par.Static} }

// Reset implements Kernel.
func (k *epKernel) Reset() {
	k.q = [epBins]int64{}
	k.sx, k.sy = 0, 0
}

// Serial runs the annotated serial version: a parallel loop over
// batches with a lock around the reduction.
func (k *epKernel) Serial() {
	annotate.SecBegin("ep-batches")
	for b := 0; b < k.batches; b++ {
		annotate.Task("batch", func() {
			q, sx, sy := epRun(b)
			annotate.Lock(1, func() { k.add(&q, sx, sy) })
		})
	}
	annotate.SecEnd(false)
}

// Parallel runs the batches with par.For and schedule s, reducing under
// a mutex.
func (k *epKernel) Parallel(threads int, s par.Schedule) {
	par.For(k.batches, threads, s, func(b int) {
		q, sx, sy := epRun(b)
		k.mu.Lock()
		k.add(&q, sx, sy)
		k.mu.Unlock()
	})
}

func (k *epKernel) add(q *[epBins]int64, sx, sy float64) {
	for i, c := range q {
		k.q[i] += c
	}
	k.sx += sx
	k.sy += sy
}

// epMul returns a·b mod 2^46 (the low 64 bits of a product are exact).
func epMul(a, b uint64) uint64 { return (a * b) & epMod }

// epPow returns a^e mod 2^46.
func epPow(a, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = epMul(r, a)
		}
		a = epMul(a, a)
	}
	return r
}

// epRun generates batch b: 2^17 numbers starting where the NAS generator
// stands after 2^17·b draws, and returns its annulus counts and sums.
func epRun(b int) (q [epBins]int64, sx, sy float64) {
	const scale = 1.0 / (1 << 46)
	x := epMul(epSeed, epPow(epA, uint64(2*epBatch)*uint64(b)))
	for i := 0; i < epBatch; i++ {
		x = epMul(x, epA)
		x1 := 2*float64(x)*scale - 1
		x = epMul(x, epA)
		x2 := 2*float64(x)*scale - 1
		t := x1*x1 + x2*x2
		if t <= 1 {
			f := math.Sqrt(-2 * math.Log(t) / t)
			g1, g2 := x1*f, x2*f
			l := min(int(math.Max(math.Abs(g1), math.Abs(g2))), epBins-1)
			q[l]++
			sx += g1
			sy += g2
		}
	}
	return q, sx, sy
}

// epVerify returns NAS EP's published sums for a batch count that is a
// NAS class: class S (M = 24) is 256 batches here.
func epVerify(batches int) (sx, sy float64, ok bool) {
	if batches == 256 {
		return -3.247834652034740e3, -6.958407078382297e3, true
	}
	return 0, 0, false
}

// Check compares counts (exactly) and sums (to 1e-9 relative, since
// the reduction order differs) with a reference run, and with NAS's
// published values where the size is a NAS class.
func (k *epKernel) Check() error {
	if k.refQ == nil {
		var q [epBins]int64
		var sx, sy float64
		for b := 0; b < k.batches; b++ {
			bq, bx, by := epRun(b)
			for i, c := range bq {
				q[i] += c
			}
			sx += bx
			sy += by
		}
		k.refQ, k.refSx, k.refSy = &q, sx, sy
	}
	if k.q != *k.refQ {
		return fmt.Errorf("ep: counts %v, want %v", k.q, *k.refQ)
	}
	if !epClose(k.sx, k.refSx) || !epClose(k.sy, k.refSy) {
		return fmt.Errorf("ep: sums (%.15g, %.15g), want (%.15g, %.15g)", k.sx, k.sy, k.refSx, k.refSy)
	}
	if vx, vy, ok := epVerify(k.batches); ok && (!epClose(k.sx, vx) || !epClose(k.sy, vy)) {
		return fmt.Errorf("ep: sums (%.15g, %.15g), NAS class S says (%.15g, %.15g)", k.sx, k.sy, vx, vy)
	}
	return nil
}

func epClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(b), 1)
}
