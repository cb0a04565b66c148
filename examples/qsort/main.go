// Command qsort runs prophet's qsort example kernel: serially with annotations
// (profile it with `prophet run -- go run ./examples/qsort`) or, with
// --parallel, really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("qsort") }
