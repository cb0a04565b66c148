package par_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/par"
)

func ExampleFor() {
	squares := make([]int, 10)
	s, err := par.ParseSchedule("dynamic:2")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Each iteration writes its own element: no locking needed.
	par.For(len(squares), 4, s, func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func ExampleForWorker() {
	// Per-worker partial sums, combined after the loop.
	const threads = 3
	partial := make([]int, threads)
	par.ForWorker(100, threads, par.Schedule{Policy: par.Static}, func(w, i int) {
		partial[w] += i
	})
	total := 0
	for _, p := range partial {
		total += p
	}
	fmt.Println(total)
	// Output: 4950
}

func ExampleSchedule_StaticChunks() {
	s := par.Schedule{Policy: par.StaticChunk, Chunk: 2}
	s.StaticChunks(7, 2, func(w, lo, hi int) { fmt.Printf("worker %d: [%d,%d)\n", w, lo, hi) })
	// Output:
	// worker 0: [0,2)
	// worker 0: [4,6)
	// worker 1: [2,4)
	// worker 1: [6,7)
}

func ExampleDo() {
	var left, right int
	par.Do(
		func() { left = 1 + 2 },
		func() { right = 3 * 4 },
	)
	fmt.Println(left, right)
	// Output: 3 12
}

// Go's own idioms: a worker pool draining a channel of indices (pool)
// and a goroutine per iteration with at most threads running at once
// (errgroup).
func ExampleParseSchedule() {
	for _, name := range []string{"pool", "errgroup"} {
		s, err := par.ParseSchedule(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		squares := make([]int, 6)
		par.For(len(squares), 2, s, func(i int) { squares[i] = i * i })
		fmt.Println(s, squares, s.PerTask())
	}
	// Output:
	// pool [0 1 4 9 16 25] false
	// errgroup [0 1 4 9 16 25] true
}
