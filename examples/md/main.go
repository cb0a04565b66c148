// Command md runs prophet's md example kernel: serially with annotations
// (profile it with `prophet run -- go run ./examples/md`) or, with
// --parallel, really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("md") }
