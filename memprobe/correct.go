package memprobe

import "github.com/parallel-prophet/prophet/tree"

// maxCorrection bounds the slowdown Correct takes out of a run or block:
// beyond it, a measurement says more about an interrupted run than
// about bandwidth.
const maxCorrection = 4.0

// Correct takes out of t, recorded in the same run of the program as
// the probe that measured raw, the time the probe's bandits added to the
// runs they streamed beside, and returns how many top-level runs it
// corrected and the time it took out of them. A run beside bandits
// throughout is scaled to its time alone: its time over its name's
// pooled slowdown beside those bandits (at least 1, at most
// maxCorrection). A first run measured in blocks
// is scaled as a whole by the share of its time that was its own, each
// block beside bandits counted at its time over the pooled slowdown
// (the blocks alternate, so that a uniform scale spreads the correction
// over the run's tasks about as the bandits did). Where the bandits
// starved, or a run has nothing to compare with, no slowdown was
// measured and the run stays as recorded. A run the recording merged
// with the runs beside it (a Sec with Count above 1) also stays: its
// lengths are the mean of runs within the compression tolerance of one
// another, which the bandits cannot have slowed by more than that.
func Correct(t *tree.Tree, raw Raw) (runs int, addedNs int64) {
	if t == nil || t.Root == nil {
		return 0, 0
	}
	pools, _ := pool([]Raw{raw})
	// slowed is the time bandits (c) added to wallNs of name's run.
	slowed := func(name string, c Config, wallNs int64) float64 {
		if c.Bandits == 0 {
			return 0
		}
		s := 1.0
		if a := pools[name][c]; a != nil {
			s = min(max(a.slowdown(), 1), maxCorrection)
		}
		return float64(wallNs) * (1 - 1/s)
	}
	type key struct {
		name string
		idx  int
	}
	// wall is each run's time, added the time its bandits added to it
	// (in blocks too): its own share is 1 less added over wall.
	wall := map[key]int64{}
	added := map[key]float64{}
	for _, r := range raw.Runs {
		k := key{r.Name, r.Index}
		wall[k] = r.WallNs
		added[k] += slowed(r.Name, Config{r.Bandits, r.Spin}, r.WallNs)
	}
	for _, b := range raw.Blocks {
		added[key{b.Name, b.Index}] += slowed(b.Name, Config{b.Bandits, b.Spin}, b.WallNs)
	}
	seen := map[string]int{}
	for i, c := range t.Root.Children {
		if c.Kind != tree.KindSec {
			continue
		}
		idx := seen[c.Name]
		seen[c.Name] = idx + int(c.Reps())
		if c.Reps() != 1 {
			continue
		}
		k := key{c.Name, idx}
		if added[k] <= 0 || wall[k] <= 0 {
			continue
		}
		f := max(1-added[k]/float64(wall[k]), 1/maxCorrection)
		w := tree.Work(c)
		t.Root.Children[i] = tree.Scaled(c, f)
		runs++
		addedNs += w - tree.Work(t.Root.Children[i])
	}
	return runs, addedNs
}
