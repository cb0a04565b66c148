package racereport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
)

// The testdata files are a race-mode run of cmd/prophet/testdata/racy
// (its cases readwrite, map, nowait and halflock): the detector's log
// (.race) and annotate's (.log), with the checkout's path replaced by
// /src/prophet.
func load(t *testing.T, name string) *Result {
	t.Helper()
	rf, err := os.Open(filepath.Join("testdata", name+".race"))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	reports, err := Parse(rf)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := os.Open(filepath.Join("testdata", name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	log, err := ReadLog(lf)
	if err != nil {
		t.Fatal(err)
	}
	return Group(reports, log)
}

func TestGroupNamesTasksAndSites(t *testing.T) {
	const file = "/src/prophet/cmd/prophet/testdata/racy/main.go"
	tests := []struct {
		name          string
		kind          string
		lines         [2]int
		tasks         [2]string // "" for an access outside any task
		section       string
		inLock, isMap [2]bool
	}{
		{"readwrite", "read/write", [2]int{25, 26}, [2]string{"set", "get"}, "flags", [2]bool{}, [2]bool{}},
		{"map", "write/write", [2]int{65, 65}, [2]string{"fill", "fill"}, "fill", [2]bool{}, [2]bool{true, true}},
		{"nowait", "write/write", [2]int{72, 74}, [2]string{"w", ""}, "first", [2]bool{}, [2]bool{}},
		{"halflock", "read/write", [2]int{81, 83}, [2]string{"locked", "bare"}, "half", [2]bool{true, false}, [2]bool{}},
	}
	for _, tc := range tests {
		res := load(t, tc.name)
		if len(res.Races) != 1 || res.Reports != 1 {
			t.Errorf("%s: %d races from %d reports, want 1 from 1", tc.name, len(res.Races), res.Reports)
			continue
		}
		r := res.Races[0]
		if r.Kind != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.name, r.Kind, tc.kind)
		}
		for i, a := range []Access{r.First, r.Second} {
			if a.Site.File != file || a.Site.Line != tc.lines[i] {
				t.Errorf("%s: access %d at %s:%d, want %s:%d", tc.name, i, a.Site.File, a.Site.Line, file, tc.lines[i])
			}
			if a.Task != tc.tasks[i] || (tc.tasks[i] != "" && a.Section != tc.section) {
				t.Errorf("%s: access %d by task %q of section %q, want %q of %q", tc.name, i, a.Task, a.Section, tc.tasks[i], tc.section)
			}
			if a.InLock != tc.inLock[i] || a.Map != tc.isMap[i] {
				t.Errorf("%s: access %d in lock %v, map %v; want %v, %v", tc.name, i, a.InLock, a.Map, tc.inLock[i], tc.isMap[i])
			}
		}
		if want := map[string]int{"readwrite": 2, "map": 8, "nowait": 1, "halflock": 2}[tc.name]; res.Tasks != want {
			t.Errorf("%s: %d tasks, want %d", tc.name, res.Tasks, want)
		}
	}
}

func TestGroupCountsReportsOfOnePair(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "readwrite.race"))
	if err != nil {
		t.Fatal(err)
	}
	// The same report three times, and text around it as in a
	// program's standard error.
	in := "program output\n" + string(data) + string(data) + "more output\n" + string(data)
	reports, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	res := Group(reports, &Log{})
	if len(res.Races) != 1 || res.Races[0].Reports != 3 {
		t.Fatalf("%d races, first with %d reports; want 1 with 3", len(res.Races), res.Races[0].Reports)
	}
	if a := res.Races[0].First; a.Section != "" || !strings.Contains(a.Where(), "no task") {
		t.Errorf("without a log an access belongs to no task: %q", a.Where())
	}
}

func TestReadLog(t *testing.T) {
	in := `race 42
site "/a/b.go" 12 "outer/inner" "row"
site "/a/b.go" 12 "outer/inner" "row"
site "/a/b.go" 12 "inner" "row"
tasks 10
tasks 5
unchecked "legacy"
unchecked "legacy"
`
	l, err := ReadLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[Site][]TaskRef{{"/a/b.go", 12}: {{"outer/inner", "row"}, {"inner", "row"}}}
	if !l.Started || l.NoRace || l.Tasks != 15 || !reflect.DeepEqual(l.Sites, want) || !reflect.DeepEqual(l.Unchecked, []string{"legacy"}) {
		t.Errorf("ReadLog = %+v", l)
	}
	// A call that started tasks at several depths names the innermost
	// section.
	a := name(Access{Created: Frame{File: "/a/b.go", Line: 12}}, l)
	if a.Section != "inner" || a.Task != "row" {
		t.Errorf("several depths: section %q, task %q; want inner, row", a.Section, a.Task)
	}
	for _, bad := range []string{"bogus 1\n", "site 12\n", `site "/a" x "s" "t"` + "\n", "tasks many\n", "unchecked bare\n"} {
		if _, err := ReadLog(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadLog(%q) passed", bad)
		}
	}
}

func TestWriteTextAndJSON(t *testing.T) {
	res := load(t, "halflock")
	res.Unchecked = []string{"legacy"}
	var text bytes.Buffer
	if err := res.WriteText(&text, filepath.Base); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 apparent race", `in section "half"`, "main.go:81", "main.go:83", `task "locked"`, `task "bare"`, "inside annotate.Lock", `"legacy"`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Races) != 1 || back.Races[0].First.Site != res.Races[0].First.Site {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
	none := &Result{Tasks: 7}
	text.Reset()
	none.WriteText(&text, nil)
	if !strings.Contains(text.String(), "no apparent races between the 7 tasks") {
		t.Errorf("no races: %q", text.String())
	}
}

// TestSiteInLock checks that an access inside either closure form of a
// critical section counts as inside a lock, and one beside it does not.
func TestSiteInLock(t *testing.T) {
	prog := Frame{Func: "main.main.func1", File: "/p/main.go", Line: 9}
	for _, tc := range []struct {
		via  string
		want bool
	}{{"Lock", true}, {"LockIndexed", true}, {"Task", false}} {
		stack := []Frame{prog, {Func: AnnotatePkg + "." + tc.via}, {Func: "main.main"}}
		s, _, in := site(stack)
		if s != prog || in != tc.want {
			t.Errorf("via annotate.%s: site %v, in a lock %v; want %v, %v", tc.via, s, in, prog, tc.want)
		}
	}
}

func TestAnnotatePkg(t *testing.T) {
	got := runtime.FuncForPC(reflect.ValueOf(annotate.Stop).Pointer()).Name()
	if got != AnnotatePkg+".Stop" {
		t.Errorf("AnnotatePkg = %q, but annotate.Stop is %q", AnnotatePkg, got)
	}
}
