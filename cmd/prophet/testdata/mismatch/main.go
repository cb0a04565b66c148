// A program whose annotations do not nest: TaskEnd closes a section.
package main

import (
	"fmt"
	"os"

	"github.com/parallel-prophet/prophet/annotate"
)

func main() {
	annotate.SecBegin("outer")
	annotate.TaskBegin("t")
	annotate.TaskEnd()
	annotate.TaskEnd() // wrong: closes the section
	annotate.SecEnd(false)
	if err := annotate.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
