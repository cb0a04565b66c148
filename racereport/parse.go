package racereport

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// AnnotatePkg is the import path of package annotate, whose frames are
// left out of the sites reported and whose Lock marks an annotated lock.
const AnnotatePkg = "github.com/parallel-prophet/prophet/annotate"

// Frame is one frame of a stack in a race report.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// Access is one of the two accesses of a race report.
type Access struct {
	// Op is "read" or "write".
	Op string `json:"op"`
	// Goroutine is the goroutine that made the access as the detector
	// names it; Main is set for the main goroutine.
	Goroutine int64 `json:"goroutine,omitempty"`
	Main      bool  `json:"main,omitempty"`
	// Stack is the access's stack, innermost first.
	Stack []Frame `json:"-"`
	// Site is the program's own frame that made the access: the
	// innermost one outside the runtime, the standard library's
	// synchronization and package annotate.
	Site Frame `json:"site"`
	// Map is set when the access is a map operation.
	Map bool `json:"map,omitempty"`
	// InLock is set when the access was made inside annotate.Lock or
	// annotate.LockIndexed (an access between LockBegin and LockEnd
	// shows no frame of its own, and cannot be told).
	InLock bool `json:"in_lock,omitempty"`
	// Created is the program's own frame of the stack that created the
	// goroutine that made the access (its call of annotate.Task or
	// annotate.Loop, for a task); zero for the main goroutine.
	Created Frame `json:"created"`
	// Section and Task name the task whose goroutine made the access
	// (see Log); Section is "" for an access outside any task. Where one
	// call of Task or Loop started tasks of several sections (a
	// recursive function), Section is the innermost section's name.
	Section string `json:"section,omitempty"`
	Task    string `json:"task,omitempty"`
}

// Report is one race report of the detector: the access that found the
// race and the earlier one it races with.
type Report struct {
	Access, Previous Access
}

// creatorRE matches the header of a goroutine's creation stack,
// "Goroutine 8 (finished) created at:".
var creatorRE = regexp.MustCompile(`^Goroutine (\d+) \([a-z ]+\) created at:$`)

// accessRE matches an access's header line, such as "Write at 0xc0000
// by goroutine 9:" or "Previous read at 0xc0000 by main goroutine:".
var accessRE = regexp.MustCompile(`^(Previous )?(?:[Aa]tomic )?([Rr]ead|[Ww]rite)(?: at 0x[0-9a-f]+)? by (?:goroutine (\d+)|(main) goroutine):$`)

// fileRE matches a frame's file line, "/path/file.go:18 +0x2f".
var fileRE = regexp.MustCompile(`^(.+):(\d+)(?: \+0x[0-9a-f]+)?$`)

// Parse reads the race reports in r, the detector's output (its log
// files or a program's standard error: other lines are skipped).
func Parse(r io.Reader) ([]Report, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Report
	var cur *Report
	var add func(Frame)           // where the frames being read go; nil between stacks
	var fn string                 // a function line waiting for its file line
	var created map[int64][]Frame // the report's creation stacks
	finish := func() {
		if cur != nil && cur.Access.Op != "" && cur.Previous.Op != "" {
			for _, a := range []*Access{&cur.Access, &cur.Previous} {
				a.Site, a.Map, a.InLock = site(a.Stack)
				if !a.Main {
					a.Created, _, _ = site(created[a.Goroutine])
				}
			}
			out = append(out, *cur)
		}
		cur, add, created = nil, nil, map[int64][]Frame{}
	}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "WARNING: DATA RACE":
			finish()
			cur = &Report{}
		case strings.HasPrefix(line, "=================="):
			finish()
		case cur == nil:
		case accessRE.MatchString(line):
			m := accessRE.FindStringSubmatch(line)
			acc := &cur.Access
			if m[1] != "" {
				acc = &cur.Previous
			}
			acc.Op = strings.ToLower(m[2])
			acc.Main = m[4] != ""
			if m[3] != "" {
				acc.Goroutine, _ = strconv.ParseInt(m[3], 10, 64)
			}
			add, fn = func(f Frame) { acc.Stack = append(acc.Stack, f) }, ""
		case creatorRE.MatchString(line):
			gid, _ := strconv.ParseInt(creatorRE.FindStringSubmatch(line)[1], 10, 64)
			add, fn = func(f Frame) { created[gid] = append(created[gid], f) }, ""
		case line == "" || strings.HasPrefix(line, "Mutex "):
			add = nil // the end of a stack
		case add == nil:
		case fn == "":
			fn = line
		default:
			if m := fileRE.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[2])
				add(Frame{Func: funcName(fn), File: m[1], Line: n})
			}
			fn = ""
		}
	}
	finish()
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading race reports: %w", err)
	}
	return out, nil
}

// funcName strips a frame's function line of its arguments:
// "main.f(0xc000, 2)" is "main.f".
func funcName(line string) string {
	if i := strings.LastIndex(line, "("); i > 0 {
		return line[:i]
	}
	return line
}

// site returns the program's own frame of stack (see Access.Site),
// whether the access was a map operation, and whether it was made
// inside annotate.Lock or annotate.LockIndexed.
func site(stack []Frame) (s Frame, isMap, inLock bool) {
	found := false
	for _, f := range stack {
		if f.Func == AnnotatePkg+".Lock" || f.Func == AnnotatePkg+".LockIndexed" {
			inLock = true
		}
		if found {
			continue
		}
		if strings.HasPrefix(f.Func, "runtime.") && strings.Contains(f.Func, "map") {
			isMap = true
		}
		if !library(f.Func) {
			s, found = f, true
		}
	}
	if !found && len(stack) > 0 {
		s = stack[0]
	}
	return s, isMap, inLock
}

// library reports whether fn belongs to the runtime, the standard
// library's synchronization or package annotate, whose frames are not
// the program's own.
func library(fn string) bool {
	for _, p := range []string{"runtime.", "internal/", "sync.", "sync/atomic.", AnnotatePkg + "."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
