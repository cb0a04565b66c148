package machine_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/machine"
)

// A machine profile starts from the defaults, is adjusted with what was
// measured, and is saved for predict to use.
func Example() {
	p := machine.Default()
	p.CPU, p.Cores = "Example CPU", 8
	p.Overheads.ForkNs = 1500 // measured
	dir, _ := os.MkdirTemp("", "machine")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "machine.json")
	if err := p.Save(path); err != nil {
		fmt.Println(err)
		return
	}
	q, err := machine.Load(path)
	fmt.Println(q.CPU, q.Cores, q.Overheads.ForkNs, err)
	// Output: Example CPU 8 1500 <nil>
}
