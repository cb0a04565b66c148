package kernels

import (
	"fmt"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// numericKernels are the kernels of this file's tests, at a small scale.
var numericKernels = []struct {
	name     string
	scale    float64
	minDepth int // deepest section nesting of the serial version's tree
}{
	{"fft", 1.0 / 32, 2},
	{"md", 1.0 / 64, 1},
	{"mandelbrot", 1.0 / 64, 1},
	{"ep", 1.0 / 16, 1},
}

func TestNumericKernelsSerialParallel(t *testing.T) {
	scheds := []par.Schedule{{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 1}, {Policy: par.Dynamic, Chunk: 1}, {Policy: par.Guided, Chunk: 1}, {Policy: par.Spawn}}
	for _, tc := range numericKernels {
		t.Run(tc.name, func(t *testing.T) {
			k, err := New(tc.name, tc.scale)
			if err != nil {
				t.Fatal(err)
			}
			if k.Name() != tc.name || k.Describe() == "" {
				t.Errorf("Name %q, Describe %q", k.Name(), k.Describe())
			}
			k.Reset()
			if err := k.Check(); err == nil {
				t.Error("Check passes before the kernel ran")
			}
			k.Serial()
			if err := k.Check(); err != nil {
				t.Errorf("serial: %v", err)
			}
			for _, s := range append([]par.Schedule{k.Schedule()}, scheds...) {
				for _, th := range []int{1, 2, 3} {
					k.Reset()
					k.Parallel(th, s)
					if err := k.Check(); err != nil {
						t.Errorf("parallel, %d threads, %s: %v", th, s, err)
					}
				}
			}
		})
	}
}

// depth returns the deepest nesting of sections below n.
func depth(n *tree.Node) int {
	d := 0
	for _, c := range n.Children {
		d = max(d, depth(c))
	}
	if n.Kind == tree.KindSec {
		d++
	}
	return d
}

func TestNumericKernelsAnnotations(t *testing.T) {
	for _, tc := range numericKernels {
		t.Run(tc.name, func(t *testing.T) {
			k, err := New(tc.name, tc.scale)
			if err != nil {
				t.Fatal(err)
			}
			k.Reset()
			tr, err := annotate.Record(k.Serial)
			if err != nil {
				t.Fatalf("recording: %v", err)
			}
			if err := k.Check(); err != nil {
				t.Errorf("recorded run: %v", err)
			}
			if d := depth(tr.Root); d < tc.minDepth {
				t.Errorf("sections nest %d deep, want at least %d", d, tc.minDepth)
			}
			if w := tree.Work(tr.Root); w <= 0 {
				t.Errorf("recorded work %d ns", w)
			}
		})
	}
}

func TestEPClassS(t *testing.T) {
	if testing.Short() {
		t.Skip("NAS class S is 2^24 pairs")
	}
	// 256 batches of 2^16 pairs is NAS EP class S; Check compares the
	// sums with NAS's published verification values.
	k := NewEP(4)
	k.Reset()
	k.Parallel(2, k.Schedule())
	if err := k.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestEPJump(t *testing.T) {
	// Jumping ahead 2^17·b draws must land where stepping does.
	x := uint64(epSeed)
	for b := 0; b < 3; b++ {
		if got := epMul(epSeed, epPow(epA, uint64(2*epBatch)*uint64(b))); got != x {
			t.Fatalf("batch %d starts at %d, want %d", b, got, x)
		}
		for i := 0; i < 2*epBatch; i++ {
			x = epMul(x, epA)
		}
	}
}

// The Mandelbrot kernel, run serially and in parallel with its own
// schedule (dynamic:1: rows are very unequal), gives the same image.
func Example_mandelbrot() {
	k, err := New("mandelbrot", 1.0/64)
	if err != nil {
		fmt.Println(err)
		return
	}
	k.Reset()
	k.Parallel(2, k.Schedule())
	fmt.Println(k.Schedule(), k.Check())
	// Output: dynamic:1 <nil>
}
