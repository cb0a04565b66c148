package main

import "github.com/parallel-prophet/prophet/annotate" // want `package main imports annotate but never calls annotate.Stop`

func main() {
	annotate.Task("t", func() {})
}
