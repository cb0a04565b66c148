package annotate_test

import (
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
)

// TestSites checks that a profile records where each region was begun:
// the caller's file:line, past annotate's own helpers.
func TestSites(t *testing.T) {
	var line = map[string]int{}
	tr, err := annotate.Record(func() {
		annotate.SecBegin("outer") // the line below is line["sec:outer"]
		line["sec:outer"] = lineHere() - 1
		for i := 0; i < 3; i++ {
			annotate.TaskBegin("direct")
			annotate.TaskEnd()
		}
		line["task:direct"] = lineHere() - 3
		annotate.SecEnd(false)
		annotate.Loop("loop", 4, func(int) {})
		line["sec:loop"] = lineHere() - 1
		line["task:loop"] = line["sec:loop"]
		annotate.SecBegin("s")
		for i := 0; i < 2; i++ {
			annotate.Task("helper", func() {})
		}
		line["task:helper"] = lineHere() - 2
		annotate.SecEnd(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	for region, l := range line {
		want := "sites_test.go:" + strconv.Itoa(l)
		got := tr.Meta.Sites[region]
		if filepath.Base(got) != want {
			t.Errorf("site of %s = %q, want .../%s", region, got, want)
		}
	}
}

// lineHere returns the line it is called from.
func lineHere() int {
	_, _, l, _ := runtime.Caller(1)
	return l
}
