package racereport_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/racereport"
)

// Example groups the race detector's reports of a race-mode run with
// annotate's log of the run's tasks, as prophet race does, and prints
// the apparent races with file names only.
func Example() {
	rf, err := os.Open(filepath.Join("testdata", "readwrite.race"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rf.Close()
	reports, err := racereport.Parse(rf)
	if err != nil {
		fmt.Println(err)
		return
	}
	lf, err := os.Open(filepath.Join("testdata", "readwrite.log"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lf.Close()
	log, err := racereport.ReadLog(lf)
	if err != nil {
		fmt.Println(err)
		return
	}
	res := racereport.Group(reports, log)
	if err := res.WriteText(os.Stdout, filepath.Base); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 apparent race(s) between tasks marked parallel (for this input):
	//
	// 1. read/write in section "flags" (1 report(s))
	//    write        main.go:25  main.init.func2.1
	//                 by task "set" of section "flags" (started at main.go:25)
	//    read         main.go:26  main.init.func2.2
	//                 by task "get" of section "flags" (started at main.go:26)
	//    locks: no annotate.Lock covers either access (a LockBegin/LockEnd pair would not show here): a lock held for both would order them, and a copy of the data per task would take the race away
}
