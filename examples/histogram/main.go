// Command histogram runs prophet's histogram example kernel, a
// fine-grained loop (about 100 ns an element) whose every iteration
// takes a shared mutex: serially with annotations (profile it with
// `prophet run -- go run ./examples/histogram`) or, with --parallel,
// really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("histogram") }
