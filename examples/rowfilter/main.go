// Command rowfilter runs prophet's rowfilter example kernel, whose rows
// each need a scratch table that the parallel version builds once per
// worker (annotate.Setup): serially with annotations (profile it with
// `prophet run -- go run ./examples/rowfilter`) or, with --parallel,
// really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("rowfilter") }
