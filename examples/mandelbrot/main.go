// Command mandelbrot runs prophet's mandelbrot example kernel: serially with annotations
// (profile it with `prophet run -- go run ./examples/mandelbrot`) or, with
// --parallel, really in parallel with package par.
package main

import "github.com/parallel-prophet/prophet/kernels"

func main() { kernels.Main("mandelbrot") }
