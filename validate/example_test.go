package validate_test

import (
	"fmt"
	"os"

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

// A report's table: where some samples have a short lock (Row.ShortLock),
// their errors are also summed up without them.
func ExampleReport_WriteTable() {
	rows := []validate.Row{
		{Test: validate.Fine, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.01},
		{Test: validate.Fine, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.03},
		{Test: validate.Fine, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.62, ShortLock: true},
	}
	rep := &validate.Report{Rows: rows, Summary: validate.Summarize(rows), Cores: 2}
	rep.WriteTable(os.Stdout)
	// Output:
	//   test  emulator  schedule  threads  samples  avg error  max error  short-lock samples  avg error, the rest  max error, the rest
	//   fine        ff    static        2        3      22.0%      62.0%                   1                 2.0%                 3.0%
	// 3 rows on 2 cores in 0s
}
