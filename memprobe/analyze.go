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
// same program into what the profile keeps (tree.MemoryProbe), using t,
// the plain recording of that program, for the time alone of sections
// run only once (their work in t). Several probe runs pool their runs
// and references: a probe run measures the machine as it was for the
// tenth of a second it took, and a machine shared with others changes
// from one second to the next.
//
// A run beside bandits is compared with the runs of the same name just
// before and after it that ran alone (their mean), and the runs beside
// the same bandit count are pooled: the slowdown is their summed time
// over their summed time alone, or, from three runs on, the median of
// their slowdowns, since one run lengthened by an interrupt or another
// program would otherwise move the sum (a section's runs can be a
// quarter of a millisecond). A section run once is compared with its
// time in the recording; where the bandits streamed for the first part
// of it only, that part's time alone is the recorded time less the
// rest's. The share compares the bandits' traffic
// beside the section, b, with their traffic alone, B(j), and beside one
// more bandit, B(j+1), on the bandwidth curve: (B(j) − b)/(B(j) − B(j+1)),
// kept between 0 and 2. Where one more bandit hardly slows them (less
// than 3%), the share cannot be told and is taken as 1.
func Analyze(t *tree.Tree, raws ...Raw) *tree.MemoryProbe {
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
	}
	out.Curve = PoolRefs(refs, line)
	if len(out.Curve) == 0 && len(raws) == 1 {
		out.Curve = raws[0].Curve
	}
	pools := map[string]map[Config]*pooled{}
	starved := map[string]bool{}
	once := onceWork(t)
	for _, raw := range raws {
		byIdx := map[string]map[int]RunSample{}
		for _, r := range raw.Runs {
			if byIdx[r.Name] == nil {
				byIdx[r.Name] = map[int]RunSample{}
			}
			byIdx[r.Name][r.Index] = r
		}
		for _, r := range raw.Runs {
			if r.Bandits <= 0 {
				continue
			}
			base := baseline(r, byIdx[r.Name], once)
			if base <= 0 || r.WallNs <= 0 {
				continue
			}
			if r.Streamed.Share() < MinBanditShare {
				starved[r.Name] = true
				continue
			}
			// Bandits that streamed for only the first part of the run,
			// under ns of its wall time: that part took under and would
			// have taken base − (wall − under) alone (the rest ran
			// alone, as fast as alone).
			under := min(r.WallNs, r.Streamed.WallNs/int64(r.Bandits))
			if under < r.WallNs {
				base -= r.WallNs - under
				if base <= under/20 {
					continue // noise: the rest took all the time alone
				}
			}
			c := Config{r.Bandits, r.Spin}
			if pools[r.Name] == nil {
				pools[r.Name] = map[Config]*pooled{}
			}
			if pools[r.Name][c] == nil {
				pools[r.Name][c] = &pooled{}
			}
			pools[r.Name][c].add(r, under, base)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(starved)) {
		if pools[name] == nil {
			notes = append(notes, fmt.Sprintf("bandits starved beside %s (other work on their cores): not measured", name))
		}
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

// baseline returns the time alone to compare run r beside bandits with:
// the mean of the runs of its name just before and after it that ran
// alone, or for a section run once, its work in the recording (once);
// 0 when there is none.
func baseline(r RunSample, runs map[int]RunSample, once map[string]int64) int64 {
	var base, n int64
	for _, d := range []int{-1, 1} {
		if nb, ok := runs[r.Index+d]; ok && nb.Bandits == 0 {
			base += nb.WallNs
			n++
		}
	}
	if n > 0 {
		return base / n
	}
	if w, ok := once[r.Name]; ok && r.Index == 0 {
		return w
	}
	return 0
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

// add pools run r, wall ns of which ran beside bandits and would have
// taken base alone.
func (a *pooled) add(r RunSample, wall, base int64) {
	a.wall += wall
	a.base += base
	a.slowdowns = append(a.slowdowns, float64(wall)/float64(base))
	a.streamed.Lines += r.Streamed.Lines
	a.streamed.BusyNs += r.Streamed.BusyNs
	a.streamed.WallNs += r.Streamed.WallNs
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

// onceWork returns the work of each top-level section name that t runs
// exactly once.
func onceWork(t *tree.Tree) map[string]int64 {
	w := map[string]int64{}
	for name, n := range RunsOf(t) {
		if n == 1 {
			for _, s := range topSections(t) {
				if s.Name == name {
					w[name] = tree.Work(s)
				}
			}
		}
	}
	return w
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
