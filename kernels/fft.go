package kernels

import (
	"fmt"
	"math"
	"math/bits"
	"math/cmplx"
	"math/rand/v2"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("fft", NewFFT)

// FFT sizes: below fftSerialCut points a recursive call runs serially
// (no section); the butterfly combine of a call of at least fftCombineCut
// points is a parallel loop over blocks of fftBlock butterflies.
const (
	fftBaseLog    = 20
	fftMinLog     = 8
	fftSerialCut  = 1 << 13
	fftCombineCut = 1 << 15
	fftBlock      = 1 << 12
)

// fftKernel is a recursive radix-2 decimation-in-time FFT of n = 2^k
// complex points: the two half-size transforms are two tasks (spawned in
// the parallel version) and, at large sizes, the butterfly combine is a
// parallel loop, so the parallelism is nested.
type fftKernel struct {
	n    int
	in   []complex128
	out  []complex128
	tw   []complex128 // tw[k] = exp(-2πik/n), k < n/2
	sref []complex128 // reference bins, computed on first Check
	idx  []int        // the bins Check verifies
}

// NewFFT returns the FFT kernel: 2^20 points at scale 1 (the size is
// rounded to a power of two).
func NewFFT(scale float64) Kernel {
	lg := fftBaseLog + int(math.Round(math.Log2(scale)))
	lg = max(lg, fftMinLog)
	n := 1 << lg
	k := &fftKernel{n: n, in: make([]complex128, n), out: make([]complex128, n), tw: make([]complex128, n/2)}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range k.in {
		k.in[i] = complex(r.Float64()*2-1, r.Float64()*2-1)
	}
	for i := range k.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(i) / float64(n))
		k.tw[i] = complex(c, s)
	}
	// Bins to verify: a few fixed ones and a few spread over the range.
	k.idx = []int{0, 1, n / 2, n - 1}
	for i := 1; i <= 8; i++ {
		k.idx = append(k.idx, (i*n/9+i*7)%n)
	}
	return k
}

// Name implements Kernel.
func (k *fftKernel) Name() string { return "fft" }

// Describe implements Kernel.
func (k *fftKernel) Describe() string {
	return fmt.Sprintf("recursive radix-2 FFT of %d points: two spawned half-size calls, parallel butterfly loop at large sizes (nested)", k.n)
}

// Schedule implements Kernel.
func (k *fftKernel) Schedule() par.Schedule { return par.Schedule{Policy: par.Static} }

// Reset implements Kernel.
func (k *fftKernel) Reset() { clear(k.out) }

// Serial runs the annotated serial FFT.
func (k *fftKernel) Serial() { k.serial(k.in, 1, k.out) }

// Parallel runs the FFT with spawned recursive calls and a parallel
// combine loop with schedule s.
func (k *fftKernel) Parallel(threads int, s par.Schedule) { k.parallel(k.in, 1, k.out, threads, s) }

// serial transforms the n = len(out) points in[0], in[stride], ... into
// out, annotating the two recursive calls as a section of two tasks and
// the combine as a parallel loop where the parallel version has them.
func (k *fftKernel) serial(in []complex128, stride int, out []complex128) {
	n := len(out)
	if n < fftSerialCut {
		k.plain(in, stride, out)
		return
	}
	h := n / 2
	annotate.SecBegin("fft-halves")
	annotate.Task("even", func() { k.serial(in, 2*stride, out[:h]) })
	annotate.Task("odd", func() { k.serial(in[stride:], 2*stride, out[h:]) })
	annotate.SecEnd(false)
	if n < fftCombineCut {
		k.combine(out, 0, h)
		return
	}
	annotate.SecBegin("fft-combine")
	for b := 0; b < h; b += fftBlock {
		annotate.Task("block", func() { k.combine(out, b, min(b+fftBlock, h)) })
	}
	annotate.SecEnd(false)
}

func (k *fftKernel) parallel(in []complex128, stride int, out []complex128, threads int, s par.Schedule) {
	n := len(out)
	if n < fftSerialCut {
		k.plain(in, stride, out)
		return
	}
	h := n / 2
	par.For(2, threads, par.Schedule{Policy: par.Spawn}, func(i int) {
		if i == 0 {
			k.parallel(in, 2*stride, out[:h], threads, s)
		} else {
			k.parallel(in[stride:], 2*stride, out[h:], threads, s)
		}
	})
	if n < fftCombineCut {
		k.combine(out, 0, h)
		return
	}
	blocks := (h + fftBlock - 1) / fftBlock
	par.For(blocks, threads, s, func(b int) {
		lo := b * fftBlock
		k.combine(out, lo, min(lo+fftBlock, h))
	})
}

// plain is the recursive FFT without annotations or parallelism.
func (k *fftKernel) plain(in []complex128, stride int, out []complex128) {
	n := len(out)
	if n == 1 {
		out[0] = in[0]
		return
	}
	h := n / 2
	k.plain(in, 2*stride, out[:h])
	k.plain(in[stride:], 2*stride, out[h:])
	k.combine(out, 0, h)
}

// combine does butterflies j in [lo, hi) of a size-2h transform whose
// two halves are in out[:h] and out[h:].
func (k *fftKernel) combine(out []complex128, lo, hi int) {
	h := len(out) / 2
	step := k.n / len(out)
	for j := lo; j < hi; j++ {
		t := k.tw[j*step] * out[j+h]
		e := out[j]
		out[j] = e + t
		out[j+h] = e - t
	}
}

// Check compares a dozen output bins with a direct DFT of the input.
func (k *fftKernel) Check() error {
	if k.sref == nil {
		k.sref = make([]complex128, len(k.idx))
		for i, f := range k.idx {
			k.sref[i] = k.dft(f)
		}
	}
	var norm float64
	for _, v := range k.sref {
		norm = max(norm, cmplx.Abs(v))
	}
	tol := 1e-9 * float64(bits.Len(uint(k.n))) * math.Max(norm, 1)
	for i, f := range k.idx {
		if d := cmplx.Abs(k.out[f] - k.sref[i]); d > tol || math.IsNaN(d) {
			return fmt.Errorf("fft: bin %d is %v, want %v (difference %.3g)", f, k.out[f], k.sref[i], d)
		}
	}
	return nil
}

// dft returns bin f of the input's discrete Fourier transform, computed
// directly with compensated twiddle indexing.
func (k *fftKernel) dft(f int) complex128 {
	var re, im float64
	n := k.n
	idx := 0
	for j := 0; j < n; j++ {
		var w complex128
		if idx < n/2 {
			w = k.tw[idx]
		} else {
			w = -k.tw[idx-n/2]
		}
		v := k.in[j] * w
		re += real(v)
		im += imag(v)
		idx += f
		if idx >= n {
			idx -= n
		}
	}
	return complex(re, im)
}
