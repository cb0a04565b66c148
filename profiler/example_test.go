package profiler_test

import (
	"fmt"
	"log"

	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// Recording a loop of tasks with a profiler used directly (programs
// normally go through package annotate).
func Example() {
	p, err := profiler.Start(profiler.Options{NoCounters: true})
	if err != nil {
		log.Fatal(err)
	}
	sum := 0
	p.SecBegin("loop")
	for i := range 100 {
		p.TaskBegin("iter")
		p.LockBegin(1)
		sum += i
		p.LockEnd(1)
		p.TaskEnd()
	}
	p.SecEnd(false)
	t, err := p.Stop()
	if err != nil {
		log.Fatal(err)
	}
	var tasks int64
	for _, sec := range t.Root.Children {
		if sec.Kind == tree.KindSec {
			for n := range sec.Expanded() {
				if n.Kind == tree.KindTask {
					tasks++
				}
			}
		}
	}
	fmt.Println(sum, tasks)
	// Output: 4950 100
}

// A mismatched annotation is reported naming both annotations.
func Example_mismatch() {
	p, err := profiler.Start(profiler.Options{NoCounters: true})
	if err != nil {
		log.Fatal(err)
	}
	p.SecBegin("outer")
	p.TaskBegin("t")
	p.SecEnd(false)
	_, err = p.Stop()
	fmt.Println(err)
	// Output: annotation mismatch at event 3: SecEnd closes Task "t" (opened at event 2)
}

// Three recordings of one run pooled with a Repeat: each interval of the
// last tree is the shortest it took in any of them, so a task that an
// interrupt lengthened in one recording keeps its undisturbed length.
func ExampleRepeat() {
	rp := &profiler.Repeat{}
	var t *tree.Tree
	for range 3 {
		p, err := profiler.Start(profiler.Options{NoCounters: true, Repeat: rp})
		if err != nil {
			log.Fatal(err)
		}
		p.SecBegin("loop")
		for range 10 {
			p.TaskBegin("iter")
			p.TaskEnd()
		}
		p.SecEnd(false)
		if t, err = p.Stop(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("%d recordings pooled, mismatch %q\n", rp.Runs(), rp.Mismatch())
	fmt.Println(t.Meta.Clock != "")
	// Output:
	// 3 recordings pooled, mismatch ""
	// true
}
