// Command racefree runs the annotated serial versions of every bundled
// kernel (at a small scale) and of a few of validate's generated
// programs, whose parallel versions are race-free: prophet race must
// find nothing in them.
package main

import (
	"fmt"
	"os"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/kernels"
	"github.com/parallel-prophet/prophet/validate"
)

func main() {
	defer annotate.Stop()
	for _, name := range kernels.Names() {
		k, err := kernels.New(name, 0.05)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		k.Reset()
		k.Serial()
		if err := k.Check(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
	}
	for _, test := range []string{validate.Test1, validate.Test2} {
		for i := range 3 {
			p, err := validate.Generate(test, validate.SampleSeed(1, test, i), 0.02)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			p.Serial()
		}
	}
}
