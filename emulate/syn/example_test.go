package syn_test

import (
	"errors"
	"fmt"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/syn"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

func Example() {
	// A loop of four tasks of 50 µs, one of them holding lock 1 for a
	// while, after 20 µs of serial code.
	prog := tree.New(
		tree.U(20_000),
		tree.Sec("loop",
			tree.Run(3, tree.Task("body", tree.U(50_000))),
			tree.Task("body", tree.U(30_000), tree.L(1, 20_000)),
		),
	)
	e := syn.New(syn.Options{Repeats: 3, MaxThreads: 1})
	res, err := emulate.Predict(e, prog, 1, par.Schedule{Policy: par.Dynamic, Chunk: 1}, emulate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The parallel time is measured, so it varies from run to run (at
	// one thread the speedup is close to 1); the serial time is the tree's.
	fmt.Println(res.Emulator, res.Threads, res.Sections[0].Name, res.SerialNs)
	// Output: syn 1 loop 220000
}

func ExampleErrTooManyThreads() {
	e := syn.New(syn.Options{MaxThreads: 2})
	sec := tree.Sec("loop", tree.Run(8, tree.Task("body", tree.U(1000))))
	_, err := e.Section(sec, 4, par.Schedule{Policy: par.Static}, 1, emulate.Options{})
	if errors.Is(err, syn.ErrTooManyThreads) {
		fmt.Println(err)
	}
	// Output: syn predicts up to 2 threads on this machine (asked for 4)
}
