package analyze

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/parallel-prophet/prophet/tree"
)

// Pprof returns t's work and critical path as a pprof profile
// (profile.proto, for go tool pprof): one function per region (a
// section, a task, or the top-level serial code), with the file:line of
// the annotation that began it when the profile recorded it
// (tree.Meta.Sites), and one sample per nesting of regions whose values
// are the work of that nesting's own leaves and their time on the
// critical path. go tool pprof -http then shows the span as a flame
// graph (sample index critical_path, the default) and the work as
// another (sample index work).
//
// The critical path is the span as Analyze computes it (a section's
// span is its strand, or the strand before a task plus that task's
// span, whichever is longest) with nowait sections taken as joined at
// once, so a program with nowait sections may show a longer path than
// SpanNs.
func Pprof(t *tree.Tree) (*profile.Profile, error) {
	if t == nil || t.Root == nil {
		return nil, fmt.Errorf("pprof: empty program tree")
	}
	s := &stacker{memo: map[*tree.Node]stacks{}}
	root := s.series(t.Root, "")
	b := &pprofBuilder{sites: t.Meta.Sites, funcs: map[string]*profile.Location{}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "work", Unit: "nanoseconds"},
			{Type: "critical_path", Unit: "nanoseconds"},
		},
		DefaultSampleType: "critical_path",
		PeriodType:        &profile.ValueType{Type: "time", Unit: "nanoseconds"},
		Period:            1,
	}
	if m := t.Meta; m.Program != "" {
		p.Comments = append(p.Comments, "prophet profile of "+m.Program)
	}
	for _, key := range root.keys() {
		v := root[key]
		if v.work == 0 && v.span == 0 {
			continue // a region with no leaves of its own
		}
		var locs []*profile.Location
		path := strings.Split(key, "\x00")
		for i := len(path) - 1; i >= 0; i-- {
			locs = append(locs, b.location(path[i]))
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{v.work, v.span}})
	}
	p.Location, p.Function = b.locs, b.fns
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: %w", err)
	}
	return p, nil
}

// pprofBuilder makes one function and location per region.
type pprofBuilder struct {
	sites map[string]string
	funcs map[string]*profile.Location
	locs  []*profile.Location
	fns   []*profile.Function
}

// location returns region's location, made on first use.
func (b *pprofBuilder) location(region string) *profile.Location {
	if l, ok := b.funcs[region]; ok {
		return l
	}
	fn := &profile.Function{ID: uint64(len(b.fns) + 1), Name: region, SystemName: region}
	line := int64(0)
	if site := b.sites[region]; site != "" {
		if i := strings.LastIndexByte(site, ':'); i > 0 {
			fn.Filename = site[:i]
			line, _ = strconv.ParseInt(site[i+1:], 10, 64)
			fn.StartLine = line
			fn.Name = region + " " + filepath.Base(site)
		}
	}
	l := &profile.Location{ID: uint64(len(b.locs) + 1), Line: []profile.Line{{Function: fn, Line: line}}}
	b.fns = append(b.fns, fn)
	b.locs = append(b.locs, l)
	b.funcs[region] = l
	return l
}

// stackVals are the work and critical-path time of the own leaves of one
// nesting of regions.
type stackVals struct{ work, span int64 }

// stacks maps a nesting of regions (names joined by NUL, outermost
// first, relative to the node they were computed for) to its values.
type stacks map[string]stackVals

// keys returns s's keys sorted.
func (s stacks) keys() []string {
	return slices.Sorted(maps.Keys(s))
}

// add adds v's work times workReps and its span times spanReps to key's
// values.
func (s stacks) add(key string, v stackVals, workReps, spanReps int64) {
	cur := s[key]
	cur.work += v.work * workReps
	cur.span += v.span * spanReps
	s[key] = cur
}

// stacker computes the stacks of every node, each distinct node once.
type stacker struct {
	memo map[*tree.Node]stacks
}

// region returns n's stacks with n's region put outermost.
func (s *stacker) region(n *tree.Node) stacks {
	if st, ok := s.memo[n]; ok {
		return st
	}
	var st stacks
	if n.Kind == tree.KindSec {
		st = s.section(n, RegionName(n))
	} else {
		st = s.series(n, RegionName(n))
	}
	s.memo[n] = st
	return st
}

// wrap adds child stacks c under region r to out, the work times
// workReps and the span times spanReps.
func wrap(out stacks, r string, c stacks, workReps, spanReps int64) {
	for k, v := range c {
		key := k
		switch {
		case r == "":
		case k == "":
			key = r
		default:
			key = r + "\x00" + k
		}
		out.add(key, v, workReps, spanReps)
	}
}

// series computes a task's or the root's stacks: its children run one
// after another, all on the critical path; r is its region ("" for the
// root, whose own leaves are the top-level serial code and whose
// sections stand at the top).
func (s *stacker) series(n *tree.Node, r string) stacks {
	out := stacks{}
	own := r
	if r == "" {
		own = SerialRegion
	}
	for _, c := range n.Children {
		reps := c.Reps()
		switch c.Kind {
		case tree.KindU, tree.KindL:
			out.add(own, stackVals{c.Len, c.Len}, reps, reps)
		case tree.KindSec:
			wrap(out, r, s.region(c), reps, reps)
		}
	}
	return out
}

// section computes a section's stacks: its own leaves (the strand) in
// series, its tasks in parallel (a run of c tasks: c times the work, the
// span of one). The critical path is the whole strand, or the strand
// before a task plus that task's span, whichever is longest.
func (s *stacker) section(n *tree.Node, r string) stacks {
	var strand, best, bestBefore int64
	var crit *tree.Node
	for _, c := range n.Children {
		switch c.Kind {
		case tree.KindU, tree.KindL:
			strand += c.Len * c.Reps()
		case tree.KindTask:
			if sp := strand + spanOf(s.region(c)); crit == nil || sp > best {
				crit, best, bestBefore = c, sp, strand
			}
		}
	}
	out := stacks{}
	if crit == nil || strand >= best {
		crit, bestBefore = nil, strand
	}
	out.add(r, stackVals{strand, bestBefore}, 1, 1)
	for _, c := range n.Children {
		if c.Kind == tree.KindTask {
			spanReps := int64(0)
			if c == crit {
				spanReps = 1
			}
			wrap(out, r, s.region(c), c.Reps(), spanReps)
		}
	}
	return out
}

// spanOf is the critical-path time of stacks st.
func spanOf(st stacks) int64 {
	var sp int64
	for _, v := range st {
		sp += v.span
	}
	return sp
}
