package analyze

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/parallel-prophet/prophet/tree"
)

// TestPprof checks the stacked work and critical path on a tree worked
// out by hand, and that the profile survives encoding.
func TestPprof(t *testing.T) {
	// s's strand is 5; its tasks: three t of 20 (5+20 = 25) and big,
	// 50 then a nested section whose longer task y is 9 (5+59 = 64):
	// the critical path is serial 14, s's 5, big's 50, y's 9 = 78.
	tr := tree.New(tree.U(10),
		tree.Sec("s", tree.U(5), tree.Run(3, tree.Task("t", tree.U(20))),
			tree.Task("big", tree.U(50), tree.Sec("inner", tree.Task("x", tree.U(7)), tree.Task("y", tree.U(9))))),
		tree.U(4))
	tr.Meta.Sites = map[string]string{"sec:s": "/src/prog/main.go:12", "task:big": "/src/prog/main.go:20"}
	p, err := Pprof(tr)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int64{
		"serial":                          {14, 14},
		"sec:s":                           {5, 5},
		"sec:s;task:t":                    {60, 0},
		"sec:s;task:big":                  {50, 50},
		"sec:s;task:big;sec:inner;task:x": {7, 0},
		"sec:s;task:big;sec:inner;task:y": {9, 9},
	}
	got := map[string][2]int64{}
	var work, span int64
	for _, s := range p.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			name, _, _ := strings.Cut(s.Location[i].Line[0].Function.Name, " ")
			names = append(names, name)
		}
		got[strings.Join(names, ";")] = [2]int64{s.Value[0], s.Value[1]}
		work += s.Value[0]
		span += s.Value[1]
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stack %s: %v, want %v", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("stacks %v, want %v", got, want)
	}
	a, err := Analyze(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if work != a.WorkNs || span != a.SpanNs || span != 78 {
		t.Errorf("total work %d, critical path %d; Analyze says %d and %d, by hand 145 and 78", work, span, a.WorkNs, a.SpanNs)
	}
	// The sites: file and line on the function, the base name in it.
	var fn *profile.Function
	for _, f := range p.Function {
		if strings.HasPrefix(f.Name, "sec:s") {
			fn = f
		}
	}
	if fn == nil || fn.Filename != "/src/prog/main.go" || fn.StartLine != 12 || fn.Name != "sec:s main.go:12" {
		t.Errorf("sec:s function %+v", fn)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if q, err := profile.Parse(&buf); err != nil || len(q.Sample) != len(p.Sample) {
		t.Errorf("round trip: %v, %d samples", err, len(q.Sample))
	}
}
