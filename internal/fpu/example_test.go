package fpu_test

import (
	"fmt"
	"sync"

	"github.com/parallel-prophet/prophet/internal/fpu"
)

// A goroutine that runs a floating-point loop clears the upper vector
// state first, as package par's workers do.
func Example() {
	var wg sync.WaitGroup
	var sum float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		fpu.ClearUpper()
		for i := 1; i <= 4; i++ {
			sum += 1 / float64(i)
		}
	}()
	wg.Wait()
	fmt.Printf("%.4f\n", sum)
	// Output: 2.0833
}
