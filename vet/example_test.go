package vet_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/vet"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// The analyzer runs like any go/analysis analyzer: here through the
// checker API on packages loaded from source, as prophet vet does.
func Example() {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, "github.com/parallel-prophet/prophet/kernels")
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := checker.Analyze([]*analysis.Analyzer{vet.Analyzer}, pkgs, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	findings := 0
	for act := range g.All() {
		if act.IsRoot {
			findings += len(act.Diagnostics)
		}
	}
	fmt.Println(vet.Analyzer.Name, "findings in the bundled kernels:", findings)
	// Output: annotate findings in the bundled kernels: 0
}
