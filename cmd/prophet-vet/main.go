// Command prophet-vet is prophet's annotation checker (package vet) as a
// go vet tool:
//
//	go install github.com/parallel-prophet/prophet/cmd/prophet-vet
//	go vet -vettool=$(go env GOPATH)/bin/prophet-vet ./...
//
// `prophet vet PACKAGES` runs the same check without go vet.
package main

import (
	"github.com/parallel-prophet/prophet/vet"
	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() { unitchecker.Main(vet.Analyzer) }
