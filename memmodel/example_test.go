package memmodel_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/tree"
)

// A memory-heavy section (MPI 0.02, 12.8 GB/s alone) on the paper's
// 12-core machine.
func ExampleBurden() {
	c := tree.Counters{Instructions: 1e9, Cycles: 2.93e8, LLCMisses: 2e7, TimeNs: 1e8}
	m := memmodel.PaperMachine()
	for _, t := range []int{2, 4, 12} {
		beta, _ := memmodel.Burden(c, m, 64, t)
		fmt.Printf("β_%d = %.2f\n", t, beta)
	}
	light := tree.Counters{Instructions: 1e9, Cycles: 2.93e8, LLCMisses: 1e5, TimeNs: 1e8}
	beta, why := memmodel.Burden(light, m, 64, 12)
	fmt.Printf("light section: β_12 = %g (%s)\n", beta, why)
	// Output:
	// β_2 = 1.25
	// β_4 = 2.63
	// β_12 = 5.64
	// light section: β_12 = 1 (MPI 0.0001 below 0.001)
}

// ForTree gives the emulators their burden function and every output its
// one-sentence status.
func ExampleForTree() {
	sec := tree.Sec("sweep", tree.Task("block", tree.U(1000)))
	sec.Counters = &tree.Counters{Instructions: 1e9, Cycles: 2.93e8, LLCMisses: 2e7, TimeNs: 1e8}
	t := tree.New(sec)

	p := machine.Default()
	_, status := memmodel.ForTree(t, p, memmodel.Auto)
	fmt.Println(status)

	m := memmodel.PaperMachine()
	p.Memory = &m
	burden, status := memmodel.ForTree(t, p, memmodel.Auto)
	fmt.Println(status)
	fmt.Printf("β_4 = %.2f\n", burden(sec, 4))
	// Output:
	// memory model off: no machine profile with memory fits (run prophet calibrate)
	// memory model on (β from hardware counters): 1 section with counters, β_12 up to 5.64
	// β_4 = 2.63
}

// Without hardware counters, the memory probe's measurements give the
// burden factors: a streaming loop that slowed 1.45× beside one full
// bandit (1.04× beside a quarter of one) and took a full bandit's share
// of bandwidth, on a 2-core machine whose two bandits each streamed
// 18 GB/s where one alone streamed 30.
func ExampleProbeBurden() {
	p := &tree.MemoryProbe{Cores: 2,
		Curve: []tree.ProbeStreams{{Streams: 1, MBs: 30000}, {Streams: 2, MBs: 18000}},
		Sections: map[string]tree.ProbeSection{"triad": {Points: []tree.ProbePoint{
			{Bandits: 1, Spin: 8, Load: 0.25, Runs: 3, Slowdown: 1.04},
			{Bandits: 1, Load: 1, Runs: 2, Slowdown: 1.45, Share: 1},
		}}}}
	for _, t := range []int{2, 4} {
		d := memmodel.ProbeBurden(p, "triad", t)
		fmt.Printf("β_%d = %.2f (load %.0f bandits, extrapolated %v)\n", t, d.Beta, d.Load, d.Extrapolated)
	}
	// Output:
	// β_2 = 1.45 (load 1 bandits, extrapolated false)
	// β_4 = 2.58 (load 3 bandits, extrapolated true)
}
