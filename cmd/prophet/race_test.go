package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/racereport"
)

// buildRace builds ./testdata/NAME with the race detector (or without,
// race false) and returns the binary; it skips the test where this
// toolchain cannot build with -race.
func buildRace(t *testing.T, name string, race bool) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds programs")
	}
	bin := filepath.Join(t.TempDir(), name)
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./testdata/"+name)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		if race && strings.Contains(string(out), "-race") {
			t.Skipf("no race detector here: %s", out)
		}
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return bin
}

// plantedLines returns, for each case of testdata/racy, the lines marked
// "// race: CASE" in its source: the sites a report must name.
func plantedLines(t *testing.T) map[string][]int {
	t.Helper()
	f, err := os.Open("testdata/racy/main.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mark := regexp.MustCompile(`// race: ([a-z-]+)`)
	out := map[string][]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if m := mark.FindStringSubmatch(sc.Text()); m != nil {
			out[m[1]] = append(out[m[1]], n)
		}
	}
	return out
}

func TestRacePlanted(t *testing.T) {
	bin := buildRace(t, "racy", true)
	planted := plantedLines(t)
	if len(planted) < 8 {
		t.Fatalf("found %d planted races in testdata/racy; the markers are lost", len(planted))
	}
	for name, lines := range planted {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := prophet("race", "--format", "json", "--", bin, name)
			if code != 1 {
				t.Fatalf("status %d, want 1 (races found); stderr %q", code, stderr)
			}
			var res racereport.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			if len(res.Races) != 1 {
				t.Fatalf("%d races, want 1: %s", len(res.Races), out)
			}
			r := res.Races[0]
			got := map[int]bool{r.First.Site.Line: true, r.Second.Site.Line: true}
			for _, l := range lines {
				if !got[l] || !strings.HasSuffix(r.First.Site.File, "racy/main.go") {
					t.Errorf("race at %s:%d and %s:%d, want line %d among them", r.First.Site.File, r.First.Site.Line, r.Second.Site.File, r.Second.Site.Line, l)
				}
			}
			if name != "nowait" && (r.First.Section == "" || r.Second.Section == "") {
				t.Errorf("the race's tasks are not named: %+v", r)
			}
			if name == "halflock" && r.First.InLock == r.Second.InLock {
				t.Errorf("halflock: want one access inside annotate.Lock and one not: %+v", r)
			}
			if name == "map" && !r.First.Map {
				t.Errorf("map: the access is not marked a map operation: %+v", r.First)
			}
		})
	}
	// The JSON goes into a report's safety section.
	_, js, _ := prophet("race", "--format", "json", "--", bin, "readwrite")
	dir := t.TempDir()
	races, html := filepath.Join(dir, "races.json"), filepath.Join(dir, "r.html")
	if err := os.WriteFile(races, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := prophet("report", triangle(t), "-o", html, "--threads", "1,2", "--races", races); code != 0 {
		t.Errorf("report --races: status %d, stderr %q", code, stderr)
	} else if page, _ := os.ReadFile(html); !strings.Contains(string(page), `id="safety"`) || !strings.Contains(string(page), "main.go:26") {
		t.Errorf("the report has no safety section naming the race")
	}
	if code, _, stderr := prophet("report", triangle(t), "-o", html, "--races", triangle(t)); code != 1 || !strings.Contains(stderr, "--races") {
		t.Errorf("report --races with a file that is not a race result: status %d, stderr %q", code, stderr)
	}
	// The text form names both lines and the section.
	code, out, _ := prophet("race", "--", bin, "readwrite")
	for _, want := range []string{"main.go:25", "main.go:26", `section "flags"`, `task "set"`, `task "get"`, "read/write"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("text report (status %d) lacks %q:\n%s", code, want, out)
		}
	}
}

func TestRaceFixedAndUnchecked(t *testing.T) {
	bin := buildRace(t, "racy", true)
	for name := range plantedLines(t) {
		code, out, stderr := prophet("race", "--", bin, name+"-fixed")
		if code != 0 || !strings.Contains(out, "no apparent races") {
			t.Errorf("%s-fixed: status %d, stderr %q, out:\n%s", name, code, stderr, out)
		}
	}
	code, out, _ := prophet("race", "--", bin, "inline")
	if code != 0 || !strings.Contains(out, "not checked") || !strings.Contains(out, `"inline"`) {
		t.Errorf("inline tasks: status %d, want 0 and the section named as not checked:\n%s", code, out)
	}
}

func TestRaceFreePrograms(t *testing.T) {
	bin := buildRace(t, "racefree", true)
	code, out, stderr := prophet("race", "--format", "json", "--", bin)
	var res racereport.Result
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("status %d, err %v, stderr %q, out:\n%s", code, err, stderr, out)
	}
	if len(res.Races) != 0 || len(res.Unchecked) != 0 || res.Tasks < 1000 {
		t.Errorf("the bundled kernels and generated programs: %d races, unchecked %v, %d tasks; want none, none and every task checked", len(res.Races), res.Unchecked, res.Tasks)
	}
}

func TestRaceUsage(t *testing.T) {
	plain := buildRace(t, "racy", false)
	code, _, stderr := prophet("race", "--", plain, "writewrite")
	if code != 2 || !strings.Contains(stderr, "go build -race") {
		t.Errorf("a program built without -race: status %d, stderr %q; want 2 and how to build it", code, stderr)
	}
	code, _, stderr = prophet("race", "--", "true")
	if code != 1 || !strings.Contains(stderr, "race mode") {
		t.Errorf("a program without annotate: status %d, stderr %q", code, stderr)
	}
	if code, _, stderr := prophet("race"); code != 2 || !strings.Contains(stderr, "name the program") {
		t.Errorf("no program: status %d, stderr %q", code, stderr)
	}
	if code, _, _ := prophet("race", "--format", "xml", "--", "true"); code != 2 {
		t.Errorf("bad format: status %d, want 2", code)
	}
	code, _, stderr = prophet("race", "--", plain+"-missing")
	if code != 1 || !strings.Contains(stderr, "cannot run") {
		t.Errorf("a missing program: status %d, stderr %q", code, stderr)
	}
}

// TestRaceGoRun runs the racy program the way the help's first example
// does, through go run -race: go run reports a nonzero exit of the
// program on stderr, and the race detector's own exit status (66 by
// default) would put an "exit status 66" line under prophet's report.
func TestRaceGoRun(t *testing.T) {
	buildRace(t, "racy", true) // skips where there is no race detector
	code, out, stderr := prophet("race", "--", "go", "run", "-race", "./testdata/racy", "writewrite")
	if code != 1 || !strings.Contains(out, "1 apparent race") {
		t.Fatalf("status %d, want 1 and the race; stderr %q, out:\n%s", code, stderr, out)
	}
	if strings.Contains(stderr, "exit status") {
		t.Errorf("go run reported the program's exit status after the races: stderr %q", stderr)
	}
}
