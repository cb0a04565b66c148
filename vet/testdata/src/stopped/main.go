package main

import "github.com/parallel-prophet/prophet/annotate"

func main() {
	defer annotate.Stop()
	annotate.Task("t", func() {})
}
