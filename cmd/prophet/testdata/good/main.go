// A small annotated program: a loop of 8 tasks with a critical section.
package main

import (
	"time"

	"github.com/parallel-prophet/prophet/annotate"
)

func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

func main() {
	defer annotate.Stop() // the error is also reported to prophet run
	annotate.SecBegin("loop")
	for i := range 8 {
		annotate.TaskBegin("iter")
		spin(time.Duration(100*(i+1)) * time.Microsecond)
		annotate.LockBegin(1)
		spin(20 * time.Microsecond)
		annotate.LockEnd(1)
		annotate.TaskEnd()
	}
	annotate.SecEnd(false)
}
