package hostload_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/internal/hostload"
)

// A Meter around a timed run says whether other programs shared the
// cores meanwhile. (No output is checked: it depends on the machine.)
func ExampleMeter() {
	m := hostload.Start()
	sum := 0
	for i := range 10_000_000 {
		sum += i
	}
	u := m.Stop()
	if u.OK && u.OthersCores >= 0.25 {
		fmt.Printf("disturbed: other programs kept %.1f of %d cores busy during the run\n", u.OthersCores, u.Cores)
	}
}
