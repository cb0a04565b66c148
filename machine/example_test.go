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

// ExampleLogNormal spreads a wake-up latency measured as a median of
// 16 µs and a 90th percentile of 23 µs.
func ExampleLogNormal() {
	d := machine.LogNormal(16e3, 23e3)
	fmt.Printf("median %.0f ns, p90 %.0f ns, p99 %.0f ns\n", d.Quantile(0.5), d.Quantile(0.9), d.Quantile(0.99))
	// Output: median 16000 ns, p90 23000 ns, p99 30919 ns
}
