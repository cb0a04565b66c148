package kernels

import (
	"fmt"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("stream", NewStream)

// Stream is a STREAM-triad-like kernel, a[i] = b[i] + s·c[i], over three
// arrays far larger than the last-level cache, swept several times. Each
// sweep is one parallel loop over blocks of elements with almost no
// computation per byte moved, so its parallel version is bound by memory
// bandwidth: the case the memory model (burden factors) is for.
type Stream struct {
	a, b, c []float64
	sweeps  int
	blocks  int
	s       float64
}

// NewStream returns a triad over arrays of 6·10^6·scale float64 each
// (48 MB each at scale 1, 144 MB together), swept 20 times in 64 blocks.
func NewStream(scale float64) Kernel {
	n := max(int(6e6*scale), 1024)
	k := &Stream{a: make([]float64, n), b: make([]float64, n), c: make([]float64, n),
		sweeps: 20, blocks: 64, s: 3}
	for i := range n {
		k.b[i] = float64(i%1000) * 0.5
		k.c[i] = float64(i%777) * 0.25
	}
	return k
}

// Name implements Kernel.
func (k *Stream) Name() string { return "stream" }

// Describe implements Kernel.
func (k *Stream) Describe() string {
	return fmt.Sprintf("STREAM triad a = b + s·c over 3 arrays of %d float64 (%d MB), %d sweeps of %d blocks: memory-bound loop parallelism",
		len(k.a), 3*8*len(k.a)/1000000, k.sweeps, k.blocks)
}

// Schedule implements Kernel: static, as STREAM's OpenMP loops.
func (k *Stream) Schedule() par.Schedule { return par.Schedule{Policy: par.Static} }

// Reset implements Kernel.
func (k *Stream) Reset() { clear(k.a) }

// block does the triad over block blk of blocks.
func (k *Stream) block(blk int) {
	n := len(k.a)
	lo, hi := blk*n/k.blocks, (blk+1)*n/k.blocks
	a, b, c, s := k.a[lo:hi], k.b[lo:hi], k.c[lo:hi], k.s
	for i := range a {
		a[i] = b[i] + s*c[i]
	}
}

// Serial implements Kernel: one top-level section per sweep, one task per
// block.
func (k *Stream) Serial() {
	for range k.sweeps {
		annotate.SecBegin("stream.triad")
		for blk := range k.blocks {
			annotate.Task("stream.block", func() { k.block(blk) })
		}
		annotate.SecEnd(false)
	}
}

// Parallel implements Kernel: each sweep is a par.For over the blocks.
func (k *Stream) Parallel(threads int, s par.Schedule) {
	for range k.sweeps {
		par.For(k.blocks, threads, s, k.block)
	}
}

// Check implements Kernel: every element against a plain triad.
func (k *Stream) Check() error {
	for i := range k.a {
		if want := k.b[i] + k.s*k.c[i]; k.a[i] != want {
			return fmt.Errorf("a[%d] = %g, want %g", i, k.a[i], want)
		}
	}
	return nil
}
