package a

import (
	"errors"
	"os"

	"github.com/parallel-prophet/prophet/annotate"
)

const lockA, lockB = 1, 2

func good(xs []int) {
	annotate.SecBegin("loop")
	for i := range xs {
		annotate.TaskBegin("i")
		if xs[i] > 0 {
			annotate.LockBegin(lockA)
			xs[i]--
			annotate.LockEnd(lockA)
		}
		annotate.TaskEnd()
	}
	annotate.SecEnd(false)
}

func goodDefer(xs []int) error {
	annotate.SecBegin("loop")
	defer annotate.SecEnd(false)
	for range xs {
		annotate.TaskBegin("i")
		annotate.TaskEnd()
	}
	if len(xs) == 0 {
		return errors.New("empty")
	}
	return nil
}

func goodClosures(xs []int) {
	annotate.Task("t", func() {
		annotate.Lock(lockA, func() { xs[0]++ })
	})
}

func goodPanic(xs []int) {
	annotate.SecBegin("loop")
	if len(xs) == 0 {
		panic("empty")
	}
	if len(xs) == 1 {
		os.Exit(1)
	}
	annotate.SecEnd(false)
}

func secInTask() {
	annotate.SecBegin("s")
	annotate.TaskBegin("t")
	annotate.SecEnd(false) // want `annotate.SecEnd while TaskBegin\(\) of line \d+ is the innermost annotation open`
	annotate.TaskEnd()
}

func lockIDs() {
	annotate.LockBegin(lockA)
	annotate.LockEnd(lockB) // want `annotate.LockEnd\(2\) closes LockBegin\(1\) of line \d+: the ids differ`
}

func plainLockPicksElement(bins []int, b int, h *struct{ n []int }, m map[string]int, k string) {
	annotate.Lock(lockA, func() { bins[b]++ })               // want `annotate.Lock's critical section writes bins\[b\], an element the task picks: mark it annotate.LockIndexed\(lockA, ...\)`
	annotate.Lock(lockA, func() { h.n[b+1] += 2 })           // want `writes h.n\[b \+ 1\]`
	annotate.Lock(lockB, func() { m[k] = len(k) })           // want `writes m\[k\]`
	annotate.Lock(lockA, func() { bins[0]++; m["fixed"]++ }) // a fixed element: plain is right
	annotate.LockIndexed(lockA, func() { bins[b]++ })
	annotate.Lock(lockA, func() {
		f := func() { bins[b]++ } // not run by the critical section itself
		_ = f
	})
}

func indexedLockIDs() {
	annotate.LockIndexedBegin(lockA)
	annotate.LockEnd(lockB) // want `annotate.LockEnd\(2\) closes LockIndexedBegin\(1\) of line \d+: the ids differ`
}

func indexedLockOK(bins []int, b int) {
	annotate.LockIndexedBegin(lockA)
	bins[b]++
	annotate.LockEnd(lockA)
}

func indexedLockOpen() {
	annotate.SecBegin("s")
	annotate.TaskBegin("t")
	annotate.LockIndexedBegin(lockA)
	annotate.TaskEnd() // want `annotate.TaskEnd while LockIndexedBegin\(1\) of line \d+ is the innermost annotation open`
	annotate.LockEnd(lockA)
	annotate.SecEnd(false)
}

func earlyReturn(xs []int) int {
	annotate.SecBegin("s")
	if len(xs) == 0 {
		return 0 // want `the function returns here with SecBegin\(\) of line \d+ open`
	}
	annotate.SecEnd(false)
	return len(xs)
}

func oneBranch(ok bool) {
	annotate.SecBegin("s")
	if ok {
		annotate.TaskBegin("t")
	}
	annotate.SecEnd(false) // want `annotations do not pair on every path to here`
}

func endWithoutBegin() {
	annotate.TaskEnd() // want `annotate.TaskEnd with no TaskBegin open`
}

func inGoroutine(done chan bool) {
	go func() {
		annotate.TaskBegin("t") // want `annotate.TaskBegin in the goroutine started at line \d+`
		annotate.TaskEnd()      // want `annotate.TaskEnd in the goroutine`
		done <- true
	}()
	go annotate.TaskEnd() // want `annotate.TaskEnd runs on a new goroutine`
	go worker()
}

func worker() {
	annotate.LockBegin(lockA) // want `annotate.LockBegin in worker, which the goroutine started at line \d+ runs`
	annotate.LockEnd(lockA)   // want `annotate.LockEnd in worker`
}

func setups(xs []int) {
	annotate.SecBegin("s")
	for range xs {
		annotate.TaskBegin("t")
		annotate.Setup(func() {})
		annotate.SetupBegin()
		annotate.SetupEnd()
		annotate.TaskEnd()
	}
	annotate.SecEnd(false)
}

func setupOpen() {
	annotate.SecBegin("s")
	annotate.SetupBegin()
	annotate.SecEnd(false) // want `annotate.SecEnd while SetupBegin\(\) of line \d+ is the innermost annotation open`
}
