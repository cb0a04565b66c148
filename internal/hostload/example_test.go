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
	if o, ok := u.OthersCores(); ok && o >= hostload.DisturbedCores {
		fmt.Printf("disturbed: other programs kept %.1f of %d cores busy during the run\n", o, u.Cores)
	}
}
