package kernels

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("histogram", NewHistogram)

// Histogram parameters: each element's value takes histRounds rounds of
// integer mixing (about 100 ns), and falls into one of histBins bins.
const (
	histBase   = 100_000
	histRounds = 24
	histBins   = 64
)

// histogram counts the hashed values of many elements into a shared
// histogram guarded by one mutex: the fine-grained loop a Go programmer
// writes first, a hundred nanoseconds of work per element and a critical
// section of a few nanoseconds in every one.
type histogram struct {
	n    int
	mu   sync.Mutex
	bins [histBins]int64
	ref  []int64 // reference result (first Check)
}

// NewHistogram returns the histogram kernel: 100,000 elements at scale 1
// (the elements grow with scale).
func NewHistogram(scale float64) Kernel {
	return &histogram{n: max(int(math.Round(histBase*scale)), 16)}
}

// Name implements Kernel.
func (k *histogram) Name() string { return "histogram" }

// Describe implements Kernel.
func (k *histogram) Describe() string {
	return fmt.Sprintf("histogram of %d hashed elements into %d bins under one mutex: a task of ~100 ns per element, a few ns locked", k.n, histBins)
}

// Schedule implements Kernel.
func (k *histogram) Schedule() par.Schedule { return par.Schedule{Policy: par.Static} }

// Reset implements Kernel.
func (k *histogram) Reset() { clear(k.bins[:]) }

// Serial runs the annotated serial version: one task per element, the
// increment under lock 1, an indexed critical section: the bin it
// writes is the task's hash.
func (k *histogram) Serial() {
	annotate.Loop("histogram", k.n, func(i int) {
		b := hashBin(i)
		annotate.LockIndexed(1, func() { k.bins[b]++ })
	})
}

// Parallel counts with par.For and schedule s, the increment under a
// real sync.Mutex.
func (k *histogram) Parallel(threads int, s par.Schedule) {
	par.For(k.n, threads, s, func(i int) {
		b := hashBin(i)
		k.mu.Lock()
		k.bins[b]++
		k.mu.Unlock()
	})
}

// hashBin mixes i for histRounds rounds (splitmix64's finalizer) and
// returns its bin.
func hashBin(i int) int {
	x := uint64(i)
	for range histRounds {
		x += 0x9e3779b97f4a7c15
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		x ^= x >> 31
	}
	return int(x % histBins)
}

// Check implements Kernel: the counts add up to the elements, and the
// first result becomes the reference.
func (k *histogram) Check() error {
	var sum int64
	for _, c := range k.bins {
		sum += c
	}
	if sum != int64(k.n) {
		return fmt.Errorf("the bins hold %d elements, want %d", sum, k.n)
	}
	if k.ref == nil {
		k.ref = slices.Clone(k.bins[:])
		return nil
	}
	if !slices.Equal(k.ref, k.bins[:]) {
		return fmt.Errorf("bins %v, want %v", k.bins, k.ref)
	}
	return nil
}
