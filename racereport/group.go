package racereport

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Race is one distinct apparent race: a pair of program sites, one of
// them writing, that tasks marked parallel reached without an order
// between them.
type Race struct {
	// Kind is "write/write" or "read/write".
	Kind string `json:"kind"`
	// First and Second are the two accesses of the first report, the
	// one whose site comes first in file order first.
	First  Access `json:"first"`
	Second Access `json:"second"`
	// Reports is how many reports of the detector showed this pair of
	// sites: one per memory location, by default (see Result.Reports).
	Reports int `json:"reports"`
}

// Result is everything a race-mode run found.
type Result struct {
	// Races are the distinct apparent races, in the order first found.
	Races []Race `json:"races"`
	// Reports is the number of race reports read.
	Reports int `json:"reports"`
	// Unchecked lists the sections whose tasks were written with
	// TaskBegin and TaskEnd, which race mode cannot move to goroutines
	// of their own: races between them were not looked for.
	Unchecked []string `json:"unchecked,omitempty"`
	// Tasks is the number of tasks race mode ran on goroutines of their
	// own.
	Tasks int `json:"tasks"`
}

// Group names each report's accesses by the tasks of log that made them
// and groups the reports by their pair of sites and kind.
func Group(reports []Report, log *Log) *Result {
	res := &Result{Reports: len(reports), Unchecked: log.Unchecked, Tasks: log.Tasks}
	type key struct {
		kind   string
		s1, s2 Frame
	}
	idx := map[key]int{}
	for _, r := range reports {
		a, b := name(r.Access, log), name(r.Previous, log)
		if siteLess(b.Site, a.Site) {
			a, b = b, a
		}
		kind := "read/write"
		if a.Op == "write" && b.Op == "write" {
			kind = "write/write"
		}
		k := key{kind, a.Site, b.Site}
		if i, ok := idx[k]; ok {
			res.Races[i].Reports++
			continue
		}
		idx[k] = len(res.Races)
		res.Races = append(res.Races, Race{Kind: kind, First: a, Second: b, Reports: 1})
	}
	return res
}

// name fills in the task that made access a: the section and task its
// goroutine's creator started there. A call started tasks of several
// sections (a recursive function's, one per depth): their innermost
// name, when it is the same for all.
func name(a Access, log *Log) Access {
	if a.Main {
		return a
	}
	refs := log.Sites[Site{a.Created.File, a.Created.Line}]
	if len(refs) == 0 {
		return a
	}
	a.Section, a.Task = refs[0].Section, refs[0].Task
	for _, r := range refs[1:] {
		if r != refs[0] {
			a.Section = innermost(refs[0].Section)
			if r.Task != a.Task {
				a.Task = "?"
			}
		}
	}
	return a
}

// innermost returns the last name of a section path.
func innermost(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

func siteLess(a, b Frame) bool {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Func, b.Func)) < 0
}

// Where says which task made a, or that it was made outside any task.
func (a Access) Where() string {
	switch {
	case a.Section != "":
		return fmt.Sprintf("task %q of section %q (started at %s:%d)", a.Task, a.Section, filepath.Base(a.Created.File), a.Created.Line)
	case a.Main:
		return "the main goroutine, outside any task"
	default:
		return fmt.Sprintf("goroutine %d, which is no task (the program started it itself)", a.Goroutine)
	}
}

// Locks says whether an annotated lock covered the race's accesses, and
// what would.
func (r Race) Locks() string {
	switch {
	case r.First.InLock && r.Second.InLock:
		return "both accesses are inside annotate.Lock, under different lock ids: one id for both would order them"
	case r.First.InLock || r.Second.InLock:
		return "one access is inside annotate.Lock and the other under no lock annotate.Lock shows: holding that lock for both would order them"
	default:
		return "no annotate.Lock covers either access (a LockBegin/LockEnd pair would not show here): a lock held for both would order them, and a copy of the data per task would take the race away"
	}
}

// Sections lists the sections the races were found in, each once, in
// order.
func (r *Result) Sections() []string {
	var out []string
	for _, race := range r.Races {
		for _, s := range []string{race.First.Section, race.Second.Section} {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
