package kernels

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("rowfilter", NewRowFilter)

// Row filter parameters: rfTaps is the filter's width, rfSteps the steps
// of the numerical integration that gives each tap its weight.
const (
	rfBaseRows = 400
	rfWidth    = 2048
	rfTaps     = 17
	rfSteps    = 800
)

// rowFilter smooths an image row by row, the way image libraries
// parallelize their filters: every row needs the filter's weights in a
// scratch buffer (here rfTaps weights, each the integral of a Cauchy
// kernel over the tap, computed numerically), which the serial loop
// computes for each row and the parallel version once per worker, in a
// buffer of the worker's own. The
// serial version marks the table's construction as per-worker setup
// (annotate.Setup), so that predictions charge it once per worker, as
// the parallel version runs it; with naive set it does not, and the
// prediction charges it in every row.
type rowFilter struct {
	rows     int
	in, out  []int32
	ref      []int32 // reference result (first Check)
	naive    bool
	scratchs [][]int32 // per-worker weights of the parallel version
}

// NewRowFilter returns the row filter kernel: 400 rows of 2048 pixels at
// scale 1 (the rows grow with scale).
func NewRowFilter(scale float64) Kernel {
	rows := max(int(math.Round(rfBaseRows*scale)), 4)
	k := &rowFilter{rows: rows, in: make([]int32, rows*rfWidth), out: make([]int32, rows*rfWidth)}
	for i := range k.in {
		k.in[i] = int32((i * 7919) % 1000)
	}
	return k
}

// NewRowFilterPerRow returns the row filter whose serial version leaves
// the table's construction in each row's task, unmarked: the annotation
// of a user who does not know annotate.Setup, whose predictions charge
// the table in every row although the parallel version builds it once
// per worker. It is for comparing the two annotations, and is not in
// the registry.
func NewRowFilterPerRow(scale float64) Kernel {
	k := NewRowFilter(scale).(*rowFilter)
	k.naive = true
	return k
}

// Name implements Kernel.
func (k *rowFilter) Name() string { return "rowfilter" }

// Describe implements Kernel.
func (k *rowFilter) Describe() string {
	return fmt.Sprintf("smooth %d rows of %d pixels with %d weights computed per row serially, per worker in parallel (per-worker setup)", k.rows, rfWidth, rfTaps)
}

// Schedule implements Kernel.
func (k *rowFilter) Schedule() par.Schedule { return par.Schedule{Policy: par.Dynamic, Chunk: 1} }

// Reset implements Kernel.
func (k *rowFilter) Reset() { clear(k.out) }

// Serial runs the annotated serial version: each row computes the
// weights (per-worker setup) and filters the row with them.
func (k *rowFilter) Serial() {
	annotate.SecBegin("rowfilter")
	for y := 0; y < k.rows; y++ {
		annotate.Task("row", func() {
			// The row's own buffer (on the stack: no garbage), as
			// each worker of the parallel version has its own.
			var w [rfTaps]int32
			if k.naive {
				weights(w[:])
			} else {
				annotate.Setup(func() { weights(w[:]) })
			}
			k.row(y, w[:])
		})
	}
	annotate.SecEnd(false)
}

// Parallel filters the rows with par.ForWorker and schedule s, each
// worker computing the weights once.
func (k *rowFilter) Parallel(threads int, s par.Schedule) {
	k.scratchs = make([][]int32, max(threads, 1))
	par.ForWorker(k.rows, threads, s, func(w, y int) {
		if k.scratchs[w] == nil {
			k.scratchs[w] = weights(make([]int32, rfTaps))
		}
		k.row(y, k.scratchs[w])
	})
	k.scratchs = nil
}

// weights fills w with the filter's weights, in 1/2^16: the integral of
// the Cauchy kernel 2^16/(1 + x²) over each tap's interval by the
// midpoint rule (rfSteps steps a tap, in integer arithmetic), and
// returns it: a setup of tens of microseconds that writes one cache
// line. w has rfTaps entries. (Integers throughout: scalar
// floating-point loops can run at two speeds depending on the vector
// registers' state, see package internal/fpu, which would make the
// serial and parallel rows differ. Nothing is allocated: garbage would
// leave the collector running into whatever is timed next.)
func weights(w []int32) []int32 {
	const half = rfTaps / 2
	var total int64
	var sums [rfTaps]int64
	for d := range w {
		var sum int64
		for s := range int64(rfSteps) {
			// x in units of 1/(2·rfSteps) of a tap.
			x := (int64(d-half)*2*rfSteps - rfSteps + 2*s + 1)
			sum += (1 << 32) / (4*rfSteps*rfSteps + x*x)
		}
		sums[d] = sum
		total += sum
	}
	for d := range w {
		w[d] = int32(sums[d] << 16 / total)
	}
	return w
}

// row smooths row y with weights w (the row's ends clamped).
func (k *rowFilter) row(y int, w []int32) {
	in := k.in[y*rfWidth : (y+1)*rfWidth]
	out := k.out[y*rfWidth : (y+1)*rfWidth]
	const half = rfTaps / 2
	for x := range out {
		var sum int64
		for d, wd := range w {
			i := min(max(x+d-half, 0), rfWidth-1)
			sum += int64(wd) * int64(in[i])
		}
		out[x] = int32(sum >> 16)
	}
}

// Check implements Kernel: the first result becomes the reference.
func (k *rowFilter) Check() error {
	if k.ref == nil {
		k.ref = append([]int32(nil), k.out...)
		for i, v := range k.ref {
			if v < 0 || v >= 1000 {
				return fmt.Errorf("pixel %d = %v, want a value in [0, 1000)", i, v)
			}
		}
		return nil
	}
	for i, v := range k.out {
		if v != k.ref[i] {
			return fmt.Errorf("pixel %d = %v, want %v", i, v, k.ref[i])
		}
	}
	return nil
}
