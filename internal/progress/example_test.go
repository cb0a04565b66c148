package progress_test

import (
	"os"

	"github.com/parallel-prophet/prophet/internal/progress"
)

func ExampleNew() {
	// Standard output is not a terminal under go test: one plain line
	// when done (and one every few seconds before that).
	bar := progress.New(os.Stdout, "work", 3)
	for i := 0; i < 3; i++ {
		bar.Add(1)
	}
	bar.Done()
	// Output:
	// work [========================] 3/3 100% in 0s
}

func ExampleBar_Report() {
	// Report is a ready-made callback for functions that say how far
	// they are as (done, total).
	bar := progress.New(os.Stdout, "measure", 0)
	measure := func(report func(done, total int)) {
		for i := 1; i <= 4; i++ {
			report(i, 4)
		}
	}
	measure(bar.Report)
	bar.Done()
	// Output:
	// measure [========================] 4/4 100% in 0s
}
