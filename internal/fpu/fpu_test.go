package fpu

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chain is a dependent floating-point chain like the inner loops the
// package documentation describes.
func chain(n int) float64 {
	x, y := 1.0, 0.5
	for range n {
		x = x*0.9999999 + y
		y = y*0.999 + 1e-9
	}
	return x + y
}

func TestClearUpperKeepsValues(t *testing.T) {
	// Float values live across the call must be unchanged: Go spills
	// them around calls, and VZEROUPPER leaves the low halves alone.
	a, b := math.Pi, math.Sqrt2
	before := chain(1000) + a*b
	ClearUpper()
	after := chain(1000) + a*b
	if before != after || a != math.Pi || b != math.Sqrt2 {
		t.Fatalf("values changed across ClearUpper: %v, %v (π %v, √2 %v)", before, after, a, b)
	}
}

func TestClearUpperOnManyGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	sums := make([]float64, 8)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ClearUpper()
			sums[i] = chain(10000)
		}()
	}
	wg.Wait()
	for i, s := range sums {
		if s != sums[0] {
			t.Fatalf("goroutine %d computed %v, goroutine 0 %v", i, s, sums[0])
		}
	}
}

// BenchmarkForkedChain times a floating-point chain on a goroutine started
// for it while its starter keeps its own core busy, as a parallel team's
// worker is, with and without ClearUpper at its start; it reports the
// chain's own time (chain-ns). On a machine with the dirty-upper-state
// penalty (see the package documentation) and two idle cores, the
// "plain" case is the slower one. On one core both run on the starter's
// thread and come out alike.
func BenchmarkForkedChain(b *testing.B) {
	for _, tc := range []struct {
		name  string
		clear bool
	}{{"plain", false}, {"cleared", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var sink float64
			var chainNs int64
			for b.Loop() {
				var done atomic.Bool
				go func() {
					if tc.clear {
						ClearUpper()
					}
					t0 := time.Now()
					sink += chain(20000)
					chainNs += int64(time.Since(t0))
					done.Store(true)
				}()
				for !done.Load() {
				}
			}
			b.ReportMetric(float64(chainNs)/float64(b.N), "chain-ns")
		})
	}
}

func BenchmarkClearUpper(b *testing.B) {
	for b.Loop() {
		ClearUpper()
	}
}
