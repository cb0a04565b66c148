package kernels

import (
	"fmt"
	"math"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("mandelbrot", NewMandelbrot)

// Mandelbrot parameters: the view is [-2, 1] × [-1.5, 1.5].
const (
	mbBaseW   = 640
	mbBaseH   = 480
	mbMaxIter = 400
	mbXMin    = -2.0
	mbXMax    = 1.0
	mbYHalf   = 1.5
)

// mandelbrotKernel computes the escape-time image of the Mandelbrot set,
// one row per task. Rows crossing the set cost up to maxIter iterations
// per pixel, rows near the edge of the view almost nothing: heavy
// imbalance, for which dynamic:1 is the schedule to use.
type mandelbrotKernel struct {
	w, h int
	img  []uint16
	ref  []uint16 // reference image (first Check)
}

// NewMandelbrot returns the Mandelbrot kernel: 640×480 pixels at scale 1
// (both sides grow with the square root of scale).
func NewMandelbrot(scale float64) Kernel {
	f := math.Sqrt(scale)
	w := max(int(math.Round(mbBaseW*f)), 8)
	h := max(int(math.Round(mbBaseH*f)), 8)
	return &mandelbrotKernel{w: w, h: h, img: make([]uint16, w*h)}
}

// Name implements Kernel.
func (k *mandelbrotKernel) Name() string { return "mandelbrot" }

// Describe implements Kernel.
func (k *mandelbrotKernel) Describe() string {
	return fmt.Sprintf("Mandelbrot set, %d×%d pixels, up to %d iterations: one task per row, heavy imbalance", k.w, k.h, mbMaxIter)
}

// Schedule implements Kernel.
func (k *mandelbrotKernel) Schedule() par.Schedule {
	return par.Schedule{Policy: par.Dynamic, Chunk: 1}
}

// Reset implements Kernel.
func (k *mandelbrotKernel) Reset() { clear(k.img) }

// Serial runs the annotated serial version: a parallel loop over rows.
func (k *mandelbrotKernel) Serial() {
	annotate.SecBegin("mandelbrot-rows")
	for y := 0; y < k.h; y++ {
		annotate.Task("row", func() { k.row(y) })
	}
	annotate.SecEnd(false)
}

// Parallel computes the rows with par.For and schedule s.
func (k *mandelbrotKernel) Parallel(threads int, s par.Schedule) {
	par.For(k.h, threads, s, k.row)
}

// row computes row y. The imaginary part is (y + 1/2 - h/2)·dy, so rows y
// and h-1-y are exact mirror images.
func (k *mandelbrotKernel) row(y int) {
	dx := (mbXMax - mbXMin) / float64(k.w)
	dy := 2 * mbYHalf / float64(k.h)
	ci := (float64(y) + 0.5 - float64(k.h)/2) * dy
	line := k.img[y*k.w : (y+1)*k.w]
	for x := range line {
		cr := mbXMin + (float64(x)+0.5)*dx
		var zr, zi float64
		n := 0
		for ; n < mbMaxIter; n++ {
			zr2, zi2 := zr*zr, zi*zi
			if zr2+zi2 > 4 {
				break
			}
			zi = 2*zr*zi + ci
			zr = zr2 - zi2 + cr
		}
		line[x] = uint16(n)
	}
}

// Check compares the image with a reference computed by the plain
// serial code, and checks its mirror symmetry and that the point nearest
// the origin is inside the set.
func (k *mandelbrotKernel) Check() error {
	if k.ref == nil {
		r := &mandelbrotKernel{w: k.w, h: k.h, img: make([]uint16, len(k.img))}
		for y := 0; y < r.h; y++ {
			r.row(y)
		}
		k.ref = r.img
	}
	for i, v := range k.img {
		if v != k.ref[i] {
			return fmt.Errorf("mandelbrot: pixel (%d, %d) is %d, want %d", i%k.w, i/k.w, v, k.ref[i])
		}
	}
	for y := 0; y < k.h/2; y++ {
		for x := 0; x < k.w; x++ {
			if a, b := k.img[y*k.w+x], k.img[(k.h-1-y)*k.w+x]; a != b {
				return fmt.Errorf("mandelbrot: pixel (%d, %d) = %d but its mirror image = %d", x, y, a, b)
			}
		}
	}
	// The pixel nearest c = 0 lies in the main cardioid.
	x0 := int((0 - mbXMin) / (mbXMax - mbXMin) * float64(k.w))
	if v := k.img[(k.h/2)*k.w+x0]; v != mbMaxIter {
		return fmt.Errorf("mandelbrot: the pixel nearest the origin escaped after %d iterations", v)
	}
	return nil
}
