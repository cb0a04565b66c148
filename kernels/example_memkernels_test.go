package kernels_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/kernels"
)

// Example_stream runs the memory-bound triad serially and with two
// workers, checking both results.
func Example_stream() {
	k, err := kernels.New("stream", 0.01)
	if err != nil {
		fmt.Println(err)
		return
	}
	k.Reset()
	k.Serial()
	fmt.Println("serial:", k.Check())
	k.Reset()
	k.Parallel(2, k.Schedule())
	fmt.Println("parallel:", k.Check())
	// Output:
	// serial: <nil>
	// parallel: <nil>
}
