// Command vetbad is an annotated program with the mistakes prophet vet
// finds: an early return inside a section, and no annotate.Stop.
package main

import (
	"fmt"
	"os"

	"github.com/parallel-prophet/prophet/annotate"
)

func sum(xs []int) int {
	annotate.SecBegin("sum")
	total := 0
	for _, x := range xs {
		if x < 0 {
			return -1
		}
		annotate.Task("add", func() { total += x })
	}
	annotate.SecEnd(false)
	return total
}

func main() {
	fmt.Println(sum([]int{1, 2, 3}))
	os.Exit(0)
}
