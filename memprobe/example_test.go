package memprobe_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/memprobe"
)

// The configurations a probe runs beside sections on a 16-core machine:
// a bandit at a quarter of full intensity, then 1, 3, 7 and 15 full ones
// (the other threads of 2, 4, 8 and 16).
func ExampleConfigs() {
	for _, c := range memprobe.Configs(16) {
		fmt.Printf("%d bandit(s), spin %d\n", c.Bandits, c.Spin)
	}
	// Output:
	// 1 bandit(s), spin 8
	// 1 bandit(s), spin 0
	// 3 bandit(s), spin 0
	// 7 bandit(s), spin 0
	// 15 bandit(s), spin 0
}

// Analyze turns a probe run's timings into the profile's memory probe: a
// loop's run beside a bandit took 1.3 ms where its neighbours took 1.0
// and 1.2 alone, and the bandit streamed 8.5 GB/s beside it, against 10
// alone and 8 beside another bandit.
func ExampleAnalyze() {
	// d ms of a bandit's streaming at mbs MB/s.
	ms := func(mbs, d float64) memprobe.Counts {
		return memprobe.Counts{Lines: int64(mbs * d * 1e6 / 64e3), BusyNs: int64(d * 1e6), WallNs: int64(d * 1e6)}
	}
	raw := memprobe.Raw{Cores: 2, LineSize: 64,
		Refs: []memprobe.RefSample{{Streams: 1, Streamed: ms(10000, 1)}, {Streams: 2, Streamed: ms(8000, 1)}},
		Runs: []memprobe.RunSample{
			{Name: "loop", Index: 0, WallNs: 1.0e6},
			{Name: "loop", Index: 1, Bandits: 1, WallNs: 1.3e6, Streamed: ms(8500, 1.3)},
			{Name: "loop", Index: 2, WallNs: 1.2e6},
		}}
	p := memprobe.Analyze(raw)
	pt := p.Sections["loop"].Points[0]
	fmt.Printf("beside %d bandit: slowdown %.3f, share %.2f\n", pt.Bandits, pt.Slowdown, pt.Share)
	// Output:
	// beside 1 bandit: slowdown 1.182, share 0.75
}
