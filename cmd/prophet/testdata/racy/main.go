// Command racy plants data races between tasks marked parallel, and
// their fixed variants, for prophet race's tests: racy CASE runs one.
package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/parallel-prophet/prophet/annotate"
)

var cases = map[string]func(){
	// Races.
	"writewrite": func() {
		total := 0
		annotate.Loop("sum", 8, func(i int) {
			total += i // race: writewrite
		})
		sink(total)
	},
	"readwrite": func() {
		flag, seen := 0, 0
		annotate.SecBegin("flags")
		annotate.Task("set", func() { flag = 1 })    // race: readwrite
		annotate.Task("get", func() { seen = flag }) // race: readwrite
		annotate.SecEnd(false)
		sink(flag + seen)
	},
	"slice": func() {
		s := make([]int, 4)
		annotate.Loop("halves", 8, func(i int) {
			s[i/2] = i // race: slice (tasks 2k and 2k+1 share element k)
		})
		sink(s[0])
	},
	"nested": func() {
		rows := make([]int, 4)
		annotate.Loop("outer", 4, func(i int) {
			annotate.Loop("inner", 4, func(j int) {
				rows[i] += j // race: nested (inner tasks of one outer task share rows[i])
			})
		})
		sink(rows[0])
	},
	"recursive": func() {
		calls := 0
		var walk func(d int)
		walk = func(d int) {
			calls++ // race: recursive
			if d == 0 {
				return
			}
			annotate.SecBegin("walk")
			annotate.Task("left", func() { walk(d - 1) })
			annotate.Task("right", func() { walk(d - 1) })
			annotate.SecEnd(false)
		}
		walk(3)
		sink(calls)
	},
	"map": func() {
		m := map[int]int{}
		annotate.Loop("fill", 8, func(i int) {
			m[i] = i // race: map
		})
		sink(len(m))
	},
	"nowait": func() {
		x := 0
		annotate.SecBegin("first")
		annotate.Task("w", func() { x = 1 }) // race: nowait
		annotate.SecEnd(true)                // no barrier: the code after may run beside the task
		x = 2                                // race: nowait
		sink(x)
	},
	"halflock": func() {
		total := 0
		annotate.SecBegin("half")
		annotate.Task("locked", func() {
			annotate.Lock(1, func() { total++ }) // race: halflock
		})
		annotate.Task("bare", func() { total++ }) // race: halflock
		annotate.SecEnd(false)
		sink(total)
	},
	// Fixed variants.
	"writewrite-fixed": func() {
		total := 0
		annotate.Loop("sum", 8, func(i int) {
			annotate.Lock(1, func() { total += i })
		})
		sink(total)
	},
	"readwrite-fixed": func() {
		flag, seen := 0, 0
		annotate.SecBegin("flags")
		annotate.Task("set", func() {
			annotate.LockBegin(1)
			flag = 1
			annotate.LockEnd(1)
		})
		annotate.Task("get", func() {
			annotate.LockBegin(1)
			seen = flag
			annotate.LockEnd(1)
		})
		annotate.SecEnd(false)
		sink(flag + seen) // after the barrier: no race
	},
	"slice-fixed": func() {
		s, t := make([]int, 8), make([]int, 8)
		annotate.Loop("own", 8, func(i int) { s[i] = i })
		annotate.Loop("read", 8, func(i int) { t[i] = s[(i+1)%8] }) // s was written before the first loop's barrier
		sink(t[0])
	},
	"nested-fixed": func() {
		rows := make([][]int, 4)
		for i := range rows {
			rows[i] = make([]int, 4)
		}
		annotate.Loop("outer", 4, func(i int) {
			annotate.Loop("inner", 4, func(j int) { rows[i][j] = j })
		})
		sink(rows[0][0])
	},
	"recursive-fixed": func() {
		var walk func(d int) int
		walk = func(d int) int {
			if d == 0 {
				return 1
			}
			var l, r int
			annotate.SecBegin("walk")
			annotate.Task("left", func() { l = walk(d - 1) })
			annotate.Task("right", func() { r = walk(d - 1) })
			annotate.SecEnd(false)
			return l + r + 1
		}
		sink(walk(3))
	},
	"halflock-fixed": func() {
		total := 0
		annotate.SecBegin("half")
		annotate.Task("locked", func() { annotate.Lock(1, func() { total++ }) })
		annotate.Task("also", func() { annotate.Lock(1, func() { total++ }) })
		annotate.SecEnd(false)
		sink(total)
	},
	"map-fixed": func() {
		m := map[int]int{}
		annotate.Loop("fill", 8, func(i int) {
			annotate.Lock(7, func() { m[i] = i })
		})
		sink(len(m))
	},
	"nowait-fixed": func() {
		x, y := 0, 0
		annotate.SecBegin("first")
		annotate.Task("w", func() { x = 1 })
		annotate.SecEnd(true)
		y = 2 // touches nothing the task touches
		annotate.SecBegin("second")
		annotate.Task("v", func() { y++ })
		annotate.SecEnd(false) // this barrier joins the first section's task too
		sink(x + y)
	},
	// Tasks written with TaskBegin and TaskEnd run inline: not checked.
	"inline": func() {
		total := 0
		annotate.SecBegin("inline")
		for i := range 4 {
			annotate.TaskBegin("t")
			total += i
			annotate.TaskEnd()
		}
		annotate.SecEnd(false)
		sink(total)
	},
}

var sinkv int

func sink(v int) { sinkv += v }

func main() {
	defer annotate.Stop()
	if len(os.Args) != 2 || cases[os.Args[1]] == nil {
		var names []string
		for n := range cases {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: racy CASE (one of %v)\n", names)
		os.Exit(2)
	}
	cases[os.Args[1]]()
}
