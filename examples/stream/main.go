// Command stream runs prophet's stream example kernel, a memory-bound
// STREAM triad: serially with annotations (profile it with
// `prophet run -- go run ./examples/stream`) or, with --parallel, really
// in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("stream") }
