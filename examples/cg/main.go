// Command cg runs prophet's cg example kernel, a CG-like sparse
// matrix-vector product with dot-product reductions: serially with
// annotations (profile it with `prophet run -- go run ./examples/cg`) or,
// with --parallel, really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("cg") }
