package memprobe

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/tree"
)

// MinBanditShare: bandits that had less than this share of a core while
// a section ran were starved (something else ran on their cores), and
// what they measured is not kept.
const MinBanditShare = 0.8

// Analyze turns a probe's raw measurements into what the profile keeps
// (tree.MemoryProbe), using t, the plain recording of the same program,
// for the time alone of sections run only once (their work in t).
//
// A run beside bandits is compared with the runs of the same name just
// before and after it that ran alone (their mean), and the runs beside
// the same bandit count are pooled: the slowdown is their summed time
// over their summed time alone. The share compares the bandits' traffic
// beside the section, b, with their traffic alone, B(j), and beside one
// more bandit, B(j+1), on the bandwidth curve: (B(j) − b)/(B(j) − B(j+1)),
// kept between 0 and 2. Where one more bandit hardly slows them (less
// than 3%), the share cannot be told and is taken as 1.
func Analyze(raw Raw, t *tree.Tree) *tree.MemoryProbe {
	out := &tree.MemoryProbe{Cores: raw.Cores, Curve: raw.Curve, Note: raw.Note}
	if len(raw.Runs) == 0 {
		return out
	}
	line := raw.LineSize
	if line <= 0 {
		line = 64
	}
	alone := map[int]float64{}
	for _, c := range raw.Curve {
		alone[c.Streams] = c.MBs
	}
	once := onceWork(t)
	type key struct {
		name string
		idx  int
	}
	byIdx := map[key]RunSample{}
	for _, r := range raw.Runs {
		byIdx[key{r.Name, r.Index}] = r
	}
	type acc struct {
		runs       int
		wall, base int64
		streamed   bandit.Counts
	}
	pools := map[string]map[int]*acc{}
	var notes []string
	starved := map[string]bool{}
	for _, r := range raw.Runs {
		if r.Bandits <= 0 {
			continue
		}
		var base, n int64
		for _, d := range []int{-1, 1} {
			if nb, ok := byIdx[key{r.Name, r.Index + d}]; ok && nb.Bandits == 0 {
				base += nb.WallNs
				n++
			}
		}
		if n > 0 {
			base /= n
		} else if w, ok := once[r.Name]; ok && r.Index == 0 {
			base = w
		} else {
			continue
		}
		if base <= 0 || r.WallNs <= 0 {
			continue
		}
		if r.Streamed.Share() < MinBanditShare {
			starved[r.Name] = true
			continue
		}
		if pools[r.Name] == nil {
			pools[r.Name] = map[int]*acc{}
		}
		a := pools[r.Name][r.Bandits]
		if a == nil {
			a = &acc{}
			pools[r.Name][r.Bandits] = a
		}
		a.runs++
		a.wall += r.WallNs
		a.base += base
		a.streamed.Lines += r.Streamed.Lines
		a.streamed.BusyNs += r.Streamed.BusyNs
		a.streamed.WallNs += r.Streamed.WallNs
	}
	for _, name := range slices.Sorted(maps.Keys(starved)) {
		if pools[name] == nil {
			notes = append(notes, fmt.Sprintf("bandits starved beside %s (other work on their cores): not measured", name))
		}
	}
	for name, byJ := range pools {
		var sec tree.ProbeSection
		for _, j := range slices.Sorted(maps.Keys(byJ)) {
			a := byJ[j]
			pt := tree.ProbePoint{Bandits: j, Runs: a.runs, Slowdown: float64(a.wall) / float64(a.base), Share: 1}
			bj, okj := alone[j]
			bk, okk := alone[j+1]
			b := a.streamed.MBs(line)
			if okj && okk && bj-bk >= 0.03*bj && b > 0 {
				pt.Share = min(max((bj-b)/(bj-bk), 0), 2)
			}
			sec.Points = append(sec.Points, pt)
		}
		if out.Sections == nil {
			out.Sections = map[string]tree.ProbeSection{}
		}
		out.Sections[name] = sec
	}
	if len(notes) > 0 {
		out.Note = strings.Join(append(nonEmpty(out.Note), notes...), "; ")
	}
	return out
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
