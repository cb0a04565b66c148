package tree_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/parallel-prophet/prophet/tree"
)

// A program tree built by hand: serial code, then a loop of 1000 tasks
// that each compute for 10 µs and hold lock 1 for 1 µs.
func Example() {
	t := tree.New(
		tree.U(2_000_000),
		tree.Sec("loop",
			tree.Run(1000, tree.Task("iter", tree.U(10_000), tree.L(1, 1_000))),
		),
	)
	tree.WriteText(os.Stdout, t, tree.TextOptions{})
	// Output:
	// Root  serial 13.0 ms, 1000 tasks, 1 sections, 1000 locks
	//   U  2.00 ms
	//   Sec "loop"  1000 tasks, work 11.0 ms
	//     Task "iter" ×1000  work 11.0 µs each
	//       U  10.0 µs
	//       L lock 1  1.00 µs
	// totals: serial 13.0 ms, 1000 tasks, 1 sections (1 top-level), 1000 locks (ids 1), 6 distinct nodes of 3003 expanded, depth 3
}

// The Builder compresses the events of a loop whose iterations take about
// the same time into one run, keeping the exact total.
func ExampleBuilder() {
	b := tree.NewBuilder(tree.BuildOptions{})
	b.BeginSec("loop")
	for i := range 1_000_000 {
		b.BeginTask("iter")
		b.U(int64(1000 + 10*(i%2))) // within 5% of each other
		b.EndTask()
	}
	b.EndSec(false, nil)
	t, err := b.Finish(tree.Meta{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tot := t.Totals()
	fmt.Println(tot.Tasks, "tasks in", tot.Nodes, "nodes, serial", tot.SerialNs, "ns")
	// Output:
	// 1000000 tasks in 4 nodes, serial 1005000000 ns
}

// Writing a profile and reading it back.
func ExampleRead() {
	t := tree.New(tree.Sec("s", tree.Run(4, tree.Task("t", tree.U(250)))))
	var buf bytes.Buffer
	if err := tree.Write(&buf, t); err != nil {
		fmt.Println(err)
		return
	}
	back, err := tree.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tree.Work(back.Root), "ns in", back.Totals().Tasks, "tasks")

	_, err = tree.Read(bytes.NewReader([]byte("#!/bin/sh\necho hello\n")))
	fmt.Println(err)
	// Output:
	// 1000 ns in 4 tasks
	// not a prophet profile (bad magic)
}

// A WorkMemo sums the serial time of every top-level section of a
// program, counting each shared subtree once over all the sections.
func ExampleWorkMemo() {
	t := tree.New(
		tree.Sec("a", tree.Run(3, tree.Task("t", tree.U(100)))),
		tree.U(50),
		tree.Run(2, tree.Sec("b", tree.Task("t", tree.U(100), tree.L(1, 20)))),
	)
	var m tree.WorkMemo
	for _, n := range t.Root.Children {
		if n.Kind == tree.KindSec {
			fmt.Println(n.Name, m.Work(n), "ns")
		}
	}
	// Output:
	// a 300 ns
	// b 240 ns
}
