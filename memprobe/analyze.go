package memprobe

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/tree"
)

// MinBanditShare: bandits that had less than this share of a core while
// a section ran were starved (something else ran on their cores), and
// what they measured is not kept.
const MinBanditShare = 0.8

// Analyze turns the raw measurements of one or more probe runs of the
// same program into what the profile keeps (tree.MemoryProbe). Several
// probe runs pool their runs and references: a probe run measures the
// machine as it was for the tenth of a second it took, and a machine
// shared with others changes from one second to the next.
//
// A run beside bandits is compared with the runs of the same name just
// before and after it that ran alone (their mean); a block of a first
// run beside bandits, with the blocks just before and after it, per
// task. The runs and blocks beside the same configuration are pooled:
// the slowdown is their summed time over their summed time alone, or,
// from three on, the median of their slowdowns, since one lengthened by
// an interrupt or another program would otherwise move the sum (a
// section's runs can be a quarter of a millisecond). The share compares
// the bandits' traffic beside the section, b, with their traffic alone,
// B(j), and beside one more bandit, B(j+1), on the bandwidth curve:
// (B(j) − b)/(B(j) − B(j+1)), kept between 0 and 2. Where one more
// bandit hardly slows them (less than 3%), the share cannot be told and
// is taken as 1.
func Analyze(raws ...Raw) *tree.MemoryProbe {
	out := &tree.MemoryProbe{}
	if len(raws) == 0 {
		return out
	}
	line := raws[0].LineSize
	if line <= 0 {
		line = 64
	}
	var refs []RefSample
	var notes []string
	var starvedRefs StarvedRefs // pooled over the runs: one note says it
	for i, raw := range raws {
		if i == 0 || raw.Cores < out.Cores {
			out.Cores = raw.Cores
		}
		refs = append(refs, raw.Refs...)
		for _, n := range strings.Split(raw.Note, "; ") {
			if n != "" && !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
		if raw.Starved != nil {
			starvedRefs.add(*raw.Starved)
		}
	}
	if starvedRefs.N > 0 {
		notes = append(notes, starvedRefs.note())
	}
	out.Curve = PoolRefs(refs, line)
	if len(out.Curve) == 0 && len(raws) == 1 {
		out.Curve = raws[0].Curve
	}
	pools, starved := pool(raws)
	for _, name := range slices.Sorted(maps.Keys(starved)) {
		if pools[name] == nil {
			notes = append(notes, fmt.Sprintf("bandits starved beside %s (other work on their cores): not measured", name))
		}
	}
	if short := unmeasured(raws, pools, starved); len(short) > 0 {
		notes = append(notes, "not measured beside bandits (their runs too short, or too few tasks at their top level to compare in blocks; the model leaves their memory contention out): "+strings.Join(short, ", "))
	}
	alone := map[int]float64{}
	for _, c := range out.Curve {
		alone[c.Streams] = c.MBs
	}
	demand := spinDemand(refs, line, alone[1])
	for name, byC := range pools {
		var sec tree.ProbeSection
		for _, c := range slices.SortedFunc(maps.Keys(byC), func(a, b Config) int {
			if a.Bandits != b.Bandits {
				return a.Bandits - b.Bandits
			}
			return b.Spin - a.Spin
		}) {
			d, ok := demand[c.Spin]
			if !ok {
				continue // no reference for its intensity
			}
			pt := byC[c].point(c, alone, line)
			pt.Load = float64(c.Bandits) * d
			if n := len(sec.Points); n > 0 && pt.Load <= sec.Points[n-1].Load {
				continue
			}
			sec.Points = append(sec.Points, pt)
		}
		if len(sec.Points) == 0 {
			continue
		}
		if out.Sections == nil {
			out.Sections = map[string]tree.ProbeSection{}
		}
		out.Sections[name] = sec
	}
	out.Note = strings.Join(notes, "; ")
	return out
}

// pool pools the runs and blocks of raws beside bandits by section
// name and configuration, and names the sections where bandits starved.
func pool(raws []Raw) (map[string]map[Config]*pooled, map[string]bool) {
	pools := map[string]map[Config]*pooled{}
	starved := map[string]bool{}
	add := func(name string, c Config, streamed Counts, wall, base int64) {
		if base <= 0 || wall <= 0 {
			return
		}
		if streamed.Share() < MinBanditShare {
			starved[name] = true
			return
		}
		if pools[name] == nil {
			pools[name] = map[Config]*pooled{}
		}
		if pools[name][c] == nil {
			pools[name][c] = &pooled{}
		}
		pools[name][c].add(streamed, wall, base)
	}
	for _, raw := range raws {
		runs := map[string]map[int]RunSample{}
		for _, r := range raw.Runs {
			if runs[r.Name] == nil {
				runs[r.Name] = map[int]RunSample{}
			}
			runs[r.Name][r.Index] = r
		}
		for _, r := range raw.Runs {
			if r.Bandits > 0 {
				add(r.Name, Config{r.Bandits, r.Spin}, r.Streamed, r.WallNs, runBaseline(r, runs[r.Name]))
			}
		}
		from := blockStarts(raw.Blocks)
		for i, b := range raw.Blocks {
			if b.Bandits > 0 && !b.Partial {
				add(b.Name, Config{b.Bandits, b.Spin}, b.Streamed, b.WallNs, blockBaseline(raw.Blocks, from, i))
			}
		}
	}
	return pools, starved
}

// unmeasured returns the sections raws timed that were measured beside
// no bandits, nor starved beside them: their first run too short, or of
// too few top-level tasks, for a block beside bandits between blocks
// alone, and their later runs too short or too few (at most five named).
func unmeasured(raws []Raw, pools map[string]map[Config]*pooled, starved map[string]bool) []string {
	seen := map[string]bool{}
	for _, raw := range raws {
		for _, r := range raw.Runs {
			if pools[r.Name] == nil && !starved[r.Name] {
				seen[r.Name] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(seen))
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return names
}

// runBaseline returns the time alone to compare run r beside bandits
// with: the mean of the runs of its name just before and after it that
// ran alone; 0 when there is none.
func runBaseline(r RunSample, runs map[int]RunSample) int64 {
	var base, n int64
	for _, d := range []int{-1, 1} {
		if nb, ok := runs[r.Index+d]; ok && nb.Bandits == 0 && !nb.Blocked {
			base += nb.WallNs
			n++
		}
	}
	if n > 0 {
		return base / n
	}
	return 0
}

// blockBaseline returns the time alone to compare block i of blocks
// with: its tasks at the time a task took in the blocks of the same run
// just before and after it that ran alone, interpolated to its place in
// the run (from, the number of the run's tasks before each block), so
// that tasks that grow or shrink along the run cancel out; from one
// neighbour, at that one's time a task. 0 when there is none.
func blockBaseline(blocks []BlockSample, from []int, i int) int64 {
	b := blocks[i]
	mid := func(j int) float64 { return float64(from[j]) + float64(blocks[j].Tasks)/2 }
	var xs, ys []float64
	for _, j := range []int{i - 1, i + 1} {
		if j < 0 || j >= len(blocks) {
			continue
		}
		nb := blocks[j]
		if nb.Name == b.Name && nb.Index == b.Index && nb.Block == b.Block+(j-i) && nb.Bandits == 0 && nb.Tasks > 0 {
			xs = append(xs, mid(j))
			ys = append(ys, float64(nb.WallNs)/float64(nb.Tasks))
		}
	}
	var perTask float64
	switch len(xs) {
	case 0:
		return 0
	case 1:
		perTask = ys[0]
	default:
		perTask = ys[0] + (ys[1]-ys[0])*(mid(i)-xs[0])/(xs[1]-xs[0])
	}
	return int64(perTask * float64(b.Tasks))
}

// blockStarts returns, for each of blocks, the number of tasks of its
// run in the blocks before it.
func blockStarts(blocks []BlockSample) []int {
	type run struct {
		name string
		idx  int
	}
	seen := map[run]int{}
	from := make([]int, len(blocks))
	for i, b := range blocks {
		k := run{b.Name, b.Index}
		from[i] = seen[k]
		seen[k] += b.Tasks
	}
	return from
}

// pooled sums the runs of one section name beside one bandit count.
type pooled struct {
	wall, base int64
	slowdowns  []float64 // each run's
	streamed   bandit.Counts
}

// slowdown returns the pooled slowdown: summed time over summed time
// alone, or from three runs on the median of the runs' slowdowns.
func (a *pooled) slowdown() float64 {
	if len(a.slowdowns) >= 3 {
		return robust.Median(a.slowdowns)
	}
	return float64(a.wall) / float64(a.base)
}

// add pools a run or block that took wall beside bandits that did
// streamed, and would have taken base alone.
func (a *pooled) add(streamed Counts, wall, base int64) {
	a.wall += wall
	a.base += base
	a.slowdowns = append(a.slowdowns, float64(wall)/float64(base))
	a.streamed.Lines += streamed.Lines
	a.streamed.BusyNs += streamed.BusyNs
	a.streamed.WallNs += streamed.WallNs
}

// point returns the pooled slowdown beside configuration c and, at full
// intensity, the share, with alone the bandwidth curve by stream count.
func (a *pooled) point(c Config, alone map[int]float64, line int) tree.ProbePoint {
	j := c.Bandits
	pt := tree.ProbePoint{Bandits: j, Spin: c.Spin, Runs: len(a.slowdowns), Slowdown: a.slowdown()}
	if c.Spin != 0 {
		return pt
	}
	pt.Share = 1
	bj, okj := alone[j]
	bk, okk := alone[j+1]
	b := a.streamed.MBs(line)
	if okj && okk && bj-bk >= 0.03*bj && b > 0 {
		pt.Share = min(max((bj-b)/(bj-bk), 0), 2)
	}
	return pt
}

// spinDemand returns, for each intensity the references measured one
// bandit alone at, its traffic over a full bandit's (full: 1).
func spinDemand(refs []RefSample, line int, full float64) map[int]float64 {
	d := map[int]float64{0: 1}
	by := map[int]bandit.Counts{}
	for _, r := range refs {
		if r.Streams == 1 && r.Spin != 0 {
			c := by[r.Spin]
			c.Lines += r.Streamed.Lines
			c.BusyNs += r.Streamed.BusyNs
			by[r.Spin] = c
		}
	}
	for spin, c := range by {
		if mbs := c.MBs(line); mbs > 0 && full > 0 {
			d[spin] = min(mbs/full, 1)
		}
	}
	return d
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
