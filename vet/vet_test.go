package vet_test

import (
	"testing"

	"github.com/parallel-prophet/prophet/vet"
	"golang.org/x/tools/go/analysis/analysistest"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), vet.Analyzer, "a", "nostop", "stopped")
}
