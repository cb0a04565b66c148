package validate_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/validate"
)

// A sample is a seeded description: the same seed always gives the same
// program, with an annotated serial form (Serial) and a real parallel
// form (Parallel) doing the same work.
func ExampleGenerate() {
	seed := validate.SampleSeed(1, validate.Test1, 0)
	p, err := validate.Generate(validate.Test1, seed, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Test, len(p.Loop.Iters) == p.Tasks())
	fmt.Println(p.Desc)
	// Output:
	// test1 true
	// 385 iterations, increasing ×9.7, lock1 6%×p1.00
}
