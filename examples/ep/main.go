// Command ep runs prophet's ep example kernel: serially with annotations
// (profile it with `prophet run -- go run ./examples/ep`) or, with
// --parallel, really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("ep") }
