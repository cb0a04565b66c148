package annotate_test

import (
	"fmt"
	"log"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/tree"
)

// Annotating a loop whose iterations could run in parallel, with a
// shared total protected by a lock. With recording off the calls cost a
// branch each.
func Example() {
	data := []int{3, 1, 4, 1, 5, 9, 2, 6}
	total := 0
	annotate.SecBegin("squares")
	for _, x := range data {
		annotate.TaskBegin("square")
		sq := x * x
		annotate.LockBegin(1)
		total += sq
		annotate.LockEnd(1)
		annotate.TaskEnd()
	}
	annotate.SecEnd(false)
	if err := annotate.Stop(); err != nil { // nil: not recording
		log.Fatal(err)
	}
	fmt.Println(total)
	// Output: 173
}

// Record profiles a function in-process and returns its program tree.
func ExampleRecord() {
	total := 0
	t, err := annotate.Record(func() {
		annotate.Loop("rows", 4, func(i int) {
			annotate.Lock(1, func() { total += i })
		})
	})
	if err != nil {
		log.Fatal(err)
	}
	tasks := int64(0)
	for _, n := range t.Root.Children {
		if n.Kind == tree.KindSec {
			for task := range n.Expanded() {
				if task.Kind == tree.KindTask {
					tasks++
				}
			}
		}
	}
	fmt.Println(total, tasks)
	// Output: 6 4
}

// LockIndexed marks a critical section that updates data the task picks,
// such as a histogram's bin: predictions charge the move of that data's
// cache line inside the critical section, where a parallel program pays
// it.
func ExampleLockIndexed() {
	values := []int{3, 1, 4, 1, 5, 9, 2, 6}
	var bins [4]int
	annotate.Loop("values", len(values), func(i int) {
		b := values[i] % len(bins)
		annotate.LockIndexed(1, func() { bins[b]++ })
	})
	fmt.Println(bins)
	// Output: [1 4 2 1]
}

// Task annotates calls a parallel version would start with go
// statements, recursive ones included; written this way, prophet race
// can check them for data races as well as prophet predict can time
// them.
func ExampleTask() {
	var sum func(xs []int) int
	sum = func(xs []int) int {
		if len(xs) < 4 {
			s := 0
			for _, x := range xs {
				s += x
			}
			return s
		}
		var left, right int
		annotate.SecBegin("halves")
		annotate.Task("left", func() { left = sum(xs[:len(xs)/2]) })
		annotate.Task("right", func() { right = sum(xs[len(xs)/2:]) })
		annotate.SecEnd(false) // both halves are done here
		return left + right
	}
	fmt.Println(sum([]int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3}))
	// Output: 39
}

// Setup marks work each iteration of the serial loop does that the
// parallel version would do once per worker, such as a scratch buffer:
// predictions charge it once per worker instead of once per task.
func ExampleSetup() {
	rows := [][]int{{1, 2}, {3, 4}, {5, 6}}
	sums := make([]int, len(rows))
	annotate.Loop("rows", len(rows), func(i int) {
		var scratch []int
		annotate.Setup(func() { scratch = make([]int, 0, 64) })
		scratch = append(scratch, rows[i]...)
		for _, v := range scratch {
			sums[i] += v
		}
	})
	fmt.Println(sums)
	// Output: [3 7 11]
}

// Probe runs a function once more beside memory-bandwidth bandits, for
// the memory model where there are no hardware counters: memprobe.Analyze
// turns what it measured into the profile's memory probe.
func ExampleProbe() {
	sum := make([]float64, 1<<16)
	work := func() {
		for range 8 {
			annotate.Loop("sweep", 16, func(b int) {
				for i := b * 4096; i < (b+1)*4096; i++ {
					sum[i] += float64(i)
				}
			})
		}
	}
	t, err := annotate.Record(work)
	if err != nil {
		log.Fatal(err)
	}
	raw, err := annotate.Probe(memprobe.Options{}, work)
	if err != nil {
		log.Fatal(err)
	}
	t.Meta.Probe = memprobe.Analyze(raw)
	// On one core the probe measures nothing and says why.
	fmt.Println(t.Meta.Probe.Cores >= 2 || t.Meta.Probe.Note != "")
	// Output: true
}
