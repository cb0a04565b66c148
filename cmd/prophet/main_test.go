package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/tree"
)

// prophet runs the command in-process and returns its exit status and
// output streams. A command that would measure this machine on first use
// gets fakeMachine's profile instead, in no time.
func prophet(args ...string) (int, string, string) {
	return prophetWith(&env{measure: fakeMachine}, args...)
}

// prophetWith runs the command in-process with e's hooks and returns its
// exit status and output streams.
func prophetWith(e *env, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	e.stdout, e.stderr = &out, &errb
	code := run(args, e)
	return code, out.String(), errb.String()
}

// fakeMachine stands for measureMachine in tests: the built-in
// overheads, labelled as this machine's.
func fakeMachine(context.Context, io.Writer) (machine.Profile, error) {
	m := machine.Default()
	sys := calibrate.ReadSystem()
	m.CPU, m.Cores = sys.CPU, sys.Cores
	return m, nil
}

// triangle writes a profile of a triangular loop 8,7,…,1 ms with a
// 0.1 ms critical section per task, and returns its path.
func triangle(t *testing.T) string {
	t.Helper()
	var tasks []*tree.Node
	for i := int64(8); i >= 1; i-- {
		tasks = append(tasks, tree.Task("row", tree.U(i*1e6), tree.L(1, 1e5)))
	}
	tr := tree.New(tree.U(1e6), tree.Sec("rows", tasks...))
	path := filepath.Join(t.TempDir(), "tri.ppt")
	if err := tree.WriteFile(path, tr); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUsageErrors(t *testing.T) {
	prof := triangle(t)
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no command", nil, 2, ""},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"unknown flag", []string{"predict", "--bogus", prof}, 2, "unknown flag"},
		{"no file", []string{"predict"}, 2, "name the profile"},
		{"two files", []string{"tree", prof, prof}, 2, "one profile only"},
		{"bad format", []string{"predict", "--format", "xml", prof}, 2, "--format"},
		{"bad schedule", []string{"predict", "--schedule", "fancy", prof}, 2, "unknown schedule"},
		{"bad threads", []string{"predict", "--threads", "0", prof}, 2, "out of range"},
		{"bad emulator", []string{"predict", "--emulator", "magic", prof}, 2, "unknown emulator"},
		{"bad memory mode", []string{"predict", "--memory", "maybe", prof}, 2, "--memory"},
		{"run without program", []string{"run"}, 2, "name the program"},
		{"whatif without change", []string{"whatif", prof}, 2, "exactly one"},
		{"whatif faster needs region", []string{"whatif", "--faster", "2", prof}, 2, "--region"},
		{"report without -o", []string{"report", prof}, 2, "-o"},
		{"missing file", []string{"tree", "/nonexistent/x.ppt"}, 1, "no such file"},
		{"unknown region", []string{"whatif", "--region", "nosuch", "--faster", "2", prof}, 1, "nosuch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := prophet(tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
			if strings.Contains(stderr, "goroutine 1 [") || strings.Contains(stderr, "panic:") {
				t.Errorf("stderr looks like a panic: %q", stderr)
			}
		})
	}
}

func TestHelpForEveryCommand(t *testing.T) {
	for _, c := range commands() {
		code, out, _ := prophet(c.name, "--help")
		if code != 0 || !strings.Contains(out, "Usage: prophet "+c.name) {
			t.Errorf("%s --help: status %d, output %q", c.name, code, out)
		}
		code2, out2, _ := prophet("help", c.name)
		if code2 != 0 || out2 != out {
			t.Errorf("help %s differs from %s --help", c.name, c.name)
		}
	}
}

func TestCorruptedProfile(t *testing.T) {
	prof := triangle(t)
	data, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-3] ^= 0xff
	bad := filepath.Join(t.TempDir(), "bad.ppt")
	os.WriteFile(bad, data, 0o644)
	for _, cmd := range []string{"tree", "predict", "analyze"} {
		code, _, stderr := prophet(cmd, bad)
		if code != 1 || !strings.Contains(stderr, "corrupted") {
			t.Errorf("%s on a corrupted file: status %d, stderr %q", cmd, code, stderr)
		}
	}
	notProfile := filepath.Join(t.TempDir(), "x.ppt")
	os.WriteFile(notProfile, []byte("hello, I am a text file\n"), 0o644)
	if code, _, stderr := prophet("tree", notProfile); code != 1 || !strings.Contains(stderr, "not a prophet profile") {
		t.Errorf("tree on a text file: status %d, stderr %q", code, stderr)
	}
}

func TestPredictJSON(t *testing.T) {
	prof := triangle(t)
	code, out, stderr := prophet("predict", prof, "--format", "json", "--threads", "1,2,64", "--schedule", "static,dynamic:1,spawn", "--memory", "off")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	var doc struct {
		Predictions []map[string]any `json:"predictions"`
		Status      string           `json:"memory_model_status"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(doc.Predictions) != 9 {
		t.Fatalf("%d predictions, want 9 (3 threads × 3 schedules)", len(doc.Predictions))
	}
	for _, p := range doc.Predictions {
		for _, k := range []string{"emulator", "schedule", "threads", "speedup", "memory_model"} {
			if _, ok := p[k]; !ok {
				t.Errorf("prediction %v lacks %q", p, k)
			}
		}
		if p["memory_model"] != false {
			t.Errorf("memory model applied with --memory off: %v", p)
		}
		// No schedule beats the bound of the longest task: 10.1 ms
		// serial work, longest row 8.1 ms, plus 1 ms of serial code.
		if s := p["speedup"].(float64); s > 38.8/9.1+1e-9 || s <= 0 {
			t.Errorf("speedup %v out of bounds in %v", s, p)
		}
	}
	if !strings.Contains(doc.Status, "memory model off") {
		t.Errorf("memory status %q does not say the model is off", doc.Status)
	}
}

func TestPredictTableCSVTimelinePlot(t *testing.T) {
	prof := triangle(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.json")
	svg := filepath.Join(dir, "curve.svg")
	code, out, stderr := prophet("predict", prof, "--threads", "1-4", "--timeline", trace, "--plot", svg)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(out, "ff static:1") || !strings.Contains(out, "Memory model off") {
		t.Errorf("table lacks columns or the memory sentence:\n%s", out)
	}
	var events struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &events); err != nil || len(events.TraceEvents) == 0 {
		t.Errorf("timeline is not trace-event JSON with events: %v", err)
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("plot is not an SVG: %v", err)
	}
	gz := filepath.Join(dir, "trace.json.gz")
	if code, _, stderr := prophet("predict", prof, "--threads", "4", "--schedule", "dynamic:1", "--timeline", gz); code != 0 {
		t.Fatalf("timeline .json.gz: status %d: %s", code, stderr)
	}
	if f, err := os.Open(gz); err != nil {
		t.Error(err)
	} else {
		zr, err := gzip.NewReader(f)
		if err != nil || json.NewDecoder(zr).Decode(&events) != nil || len(events.TraceEvents) == 0 {
			t.Errorf("the .json.gz timeline is not gzip-compressed trace-event JSON: %v", err)
		}
		f.Close()
	}
	code, out, _ = prophet("predict", prof, "--format", "csv", "--threads", "2", "--schedule", "static")
	if code != 0 || !strings.HasPrefix(out, "emulator,schedule,threads") || strings.Count(out, "\n") != 2 {
		t.Errorf("csv: status %d, output %q", code, out)
	}
}

func TestTreeAnalyzeWhatifReport(t *testing.T) {
	prof := triangle(t)
	code, out, stderr := prophet("tree", prof)
	if code != 0 || !strings.Contains(out, `Sec "rows"`) || !strings.Contains(out, "8 tasks") {
		t.Errorf("tree: status %d, stderr %q, out:\n%s", code, stderr, out)
	}
	code, out, _ = prophet("tree", prof, "--format", "json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["tasks"] != float64(8) || v["serial_ns"] == nil {
		t.Errorf("tree json: status %d, %v", code, v)
	}
	code, out, _ = prophet("analyze", prof, "--format", "json")
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("analyze json: status %d, %q", code, out)
	}
	// Work 36.8 ms + 1 ms serial; span 1 ms + 8.1 ms.
	if v["work_ns"] != 37.8e6 || v["span_ns"] != 9.1e6 {
		t.Errorf("analyze: work %v, span %v; want 3.78e7 and 9.1e6", v["work_ns"], v["span_ns"])
	}
	code, out, stderr = prophet("whatif", prof, "--region", "row", "--faster", "2", "--threads", "2", "--schedule", "dynamic:1")
	if code != 0 || !strings.Contains(out, "before") {
		t.Errorf("whatif: status %d, stderr %q, out:\n%s", code, stderr, out)
	}
	// Parallelism 37.8/9.1 ≈ 4.15: a target of 2 is already reached, 10
	// needs the rows split.
	for _, target := range []string{"2", "10"} {
		code, out, stderr = prophet("whatif", prof, "--target-parallelism", target)
		if code != 0 || !strings.Contains(out, "target reached") {
			t.Errorf("whatif --target-parallelism %s: status %d, stderr %q, out:\n%s", target, code, stderr, out)
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	code, _, stderr = prophet("report", prof, "-o", html, "--threads", "1,2,4")
	if data, err := os.ReadFile(html); code != 0 || err != nil || !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte(`id="sweep"`)) {
		t.Errorf("report: status %d, stderr %q, err %v (want plots and the what-to-optimize-first table)", code, stderr, err)
	}
	// The sweep: the rows carry the work, so making them faster gains
	// most; the serial code (1 ms of 37.8) gains least.
	code, out, stderr = prophet("whatif", prof, "--sweep", "--threads", "4", "--schedule", "dynamic:1")
	if code != 0 {
		t.Fatalf("whatif --sweep: status %d, stderr %q", code, stderr)
	}
	lines := strings.Split(out, "\n")
	var order []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && (strings.HasPrefix(f[0], "task:") || strings.HasPrefix(f[0], "sec:") || f[0] == "serial") {
			order = append(order, f[0])
		}
	}
	if len(order) != 3 || order[2] != "serial" || !strings.Contains(out, "50% faster") || !strings.Contains(out, "split 4 ways") {
		t.Errorf("whatif --sweep ranks %v, want the rows' regions before serial, with every change:\n%s", order, out)
	}
}

// TestRunPrograms builds small annotated programs and profiles them with
// prophet run: one good, one whose annotations do not nest.
func TestRunPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	dir := t.TempDir()
	build := func(name string) string {
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bin, "./testdata/"+name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", name, err, out)
		}
		return bin
	}
	good, bad := build("good"), build("mismatch")

	prof := filepath.Join(dir, "good.ppt")
	code, _, stderr := prophet("run", "-o", prof, "--", good)
	if code != 0 || !strings.Contains(stderr, "profile written to") {
		t.Fatalf("run good: status %d, stderr %q", code, stderr)
	}
	tr, err := tree.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.Program != good {
		t.Errorf("the profile names the program %q, want it as given, %q", tr.Meta.Program, good)
	}
	if tot := tr.Totals(); tot.Tasks != 8 || tot.Sections != 1 || tot.Locks != 8 {
		t.Errorf("profile totals %+v, want 8 tasks, 1 section, 8 locks", tot)
	}
	// The memory probe (auto: no counters here) ran beside the
	// recording and measured its one section in blocks of its one run
	// (or says why not: parallel tests can starve its bandits).
	if probeBeside(memmodel.Auto) {
		p := tr.Meta.Probe
		if p == nil || !strings.Contains(stderr, "memory probe: measured beside the recording") {
			t.Errorf("no memory probe in the profile; stderr %q", stderr)
		} else if _, ok := p.Sections["loop"]; !ok && p.Note == "" {
			t.Errorf("the probe measured no section and says nothing: %+v", p)
		}
	}
	noProbe := filepath.Join(dir, "noprobe.ppt")
	code, _, stderr = prophet("run", "-o", noProbe, "--memory-probe", "off", "--", good)
	if nt, err := tree.ReadFile(noProbe); code != 0 || err != nil || nt.Meta.Probe != nil || strings.Contains(stderr, "memory probe") {
		t.Errorf("run --memory-probe off: status %d, stderr %q, err %v", code, stderr, err)
	}
	code, _, stderr = prophet("run", "-o", noProbe, "--memory-probe", "sometimes", "--", good)
	if code != 2 || !strings.Contains(stderr, "--memory-probe") {
		t.Errorf("run --memory-probe sometimes: status %d, stderr %q; want 2 and the flag named", code, stderr)
	}
	// Three recordings pooled into one profile.
	pooled := filepath.Join(dir, "pooled.ppt")
	code, _, stderr = prophet("run", "-o", pooled, "--repeat", "3", "--memory-probe", "off", "--", good)
	if pt, err := tree.ReadFile(pooled); code != 0 || err != nil || !strings.Contains(stderr, "pooled 3 recordings") || pt.Totals().Tasks != 8 {
		t.Errorf("run --repeat 3: status %d, err %v, stderr %q", code, err, stderr)
	}
	// With the probe beside the first recording, the later ones replace
	// the runs its bandits slowed: nothing is scaled.
	code, _, stderr = prophet("run", "-o", pooled, "--repeat", "2", "--memory-probe", "on", "--", good)
	if pt, err := tree.ReadFile(pooled); code != 0 || err != nil || pt.Meta.Probe == nil ||
		memprobe.NoCoresNote() == "" && !strings.Contains(stderr, "later recordings replaced") {
		t.Errorf("run --repeat 2 --memory-probe on: status %d, err %v, stderr %q", code, err, stderr)
	}
	for _, bad := range []string{"0", "21", "x"} {
		code, _, stderr = prophet("run", "-o", pooled, "--repeat", bad, "--", good)
		if code != 2 || !strings.Contains(stderr, "repeat") {
			t.Errorf("run --repeat %s: status %d, stderr %q; want 2 and the flag named", bad, code, stderr)
		}
	}
	// The tasks spin 100, 200, ..., 800 µs: none merge at the default
	// 5%, but from 400 µs on they do at 50%.
	coarse := filepath.Join(dir, "coarse.ppt")
	code, _, stderr = prophet("run", "-o", coarse, "--tolerance", "0.5", "--", good)
	if code != 0 {
		t.Fatalf("run --tolerance 0.5: status %d, stderr %q", code, stderr)
	}
	ct, err := tree.ReadFile(coarse)
	if err != nil {
		t.Fatal(err)
	}
	if c, f := ct.Totals(), tr.Totals(); c.Tasks != 8 || c.Nodes >= f.Nodes {
		t.Errorf("at 50%%: %d tasks in %d nodes; at 5%%: %d nodes: want 8 tasks in fewer nodes", c.Tasks, c.Nodes, f.Nodes)
	}
	for _, bad := range []string{"1", "NaN", "x"} {
		code, _, stderr = prophet("run", "-o", coarse, "--tolerance", bad, "--", good)
		if code != 2 || !strings.Contains(stderr, "tolerance") {
			t.Errorf("run --tolerance %s: status %d, stderr %q; want 2 and the flag named", bad, code, stderr)
		}
	}

	badProf := filepath.Join(dir, "bad.ppt")
	code, _, stderr = prophet("run", "-o", badProf, "--", bad)
	if code != 1 || !strings.Contains(stderr, "TaskEnd") || !strings.Contains(stderr, `Sec "outer"`) {
		t.Errorf("run mismatch: status %d, stderr %q; want the error naming TaskEnd and Sec \"outer\"", code, stderr)
	}
	if _, err := os.Stat(badProf); err == nil {
		t.Errorf("a profile was written for a program with mismatched annotations")
	}
}

func TestTreeShowsCountersAndBurdens(t *testing.T) {
	sec := tree.Sec("stream", tree.Run(4, tree.Task("block", tree.U(1e6))))
	sec.Counters = &tree.Counters{Instructions: 1e7, Cycles: 1e7, LLCMisses: 1e5, TimeNs: 4e6, Runs: 3}
	tr := tree.New(sec)
	dir := t.TempDir()
	prof := filepath.Join(dir, "c.ppt")
	if err := tree.WriteFile(prof, tr); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := prophet("tree", prof, "--machine", filepath.Join(dir, "none.json"))
	if code != 1 || !strings.Contains(stderr, "machine profile") {
		t.Errorf("a missing --machine file: status %d, stderr %q", code, stderr)
	}
	// A machine with the paper's fits: δ = 1e5·64 B / 4 ms = 1600 MB/s,
	// below the fits' 2000 MB/s, so β stays 1 but the counters show.
	code, out, stderr = prophet("tree", prof)
	if code != 0 || !strings.Contains(out, "10000000") || !strings.Contains(out, "0.0100") {
		t.Errorf("tree with counters: status %d, stderr %q, out:\n%s", code, stderr, out)
	}
	// The paper's machine and a section streaming 16 GB/s: β_t > 1.
	m := machine.Default()
	mem := memmodel.PaperMachine()
	m.Memory = &mem
	mpath := filepath.Join(dir, "paper.json")
	if err := m.Save(mpath); err != nil {
		t.Fatal(err)
	}
	sec.Counters.LLCMisses = 1e6
	tree.WriteFile(prof, tr)
	code, out, _ = prophet("tree", prof, "--machine", mpath, "--threads", "2,8")
	if code != 0 || !strings.Contains(out, "β_8") {
		t.Fatalf("tree with a machine: status %d, out:\n%s", code, out)
	}
	d := memmodel.Compute(*sec.Counters, mem, 64, 8)
	if d.Beta <= 1 || !strings.Contains(out, fmt.Sprintf("%.2f", d.Beta)) {
		t.Errorf("β_8 = %.2f missing from:\n%s", d.Beta, out)
	}
	// predict applies the burden factors and shows both columns.
	code, out, stderr = prophet("predict", prof, "--machine", mpath, "--memory", "on", "--threads", "8", "--schedule", "static", "--format", "json")
	var doc struct {
		Predictions []struct {
			Speedup     float64 `json:"speedup"`
			MemoryModel bool    `json:"memory_model"`
		} `json:"predictions"`
		Status string `json:"memory_model_status"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Predictions) != 2 {
		t.Fatalf("predict --memory on: status %d, stderr %q, err %v, out:\n%s", code, stderr, err, out)
	}
	if doc.Predictions[0].MemoryModel || !doc.Predictions[1].MemoryModel || doc.Predictions[1].Speedup >= doc.Predictions[0].Speedup {
		t.Errorf("want a row without and a slower row with the memory model: %+v", doc.Predictions)
	}
	if !strings.Contains(doc.Status, "memory model on") {
		t.Errorf("status %q", doc.Status)
	}
	// A section the model leaves at β 1 gets one row, not a second
	// pass that repeats the first.
	sec.Counters.LLCMisses = 1e5
	tree.WriteFile(prof, tr)
	code, out, stderr = prophet("predict", prof, "--machine", mpath, "--memory", "on", "--threads", "8", "--schedule", "static", "--format", "json")
	doc.Predictions = nil
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Predictions) != 1 || doc.Predictions[0].MemoryModel {
		t.Errorf("predict --memory on with every β 1: status %d, stderr %q, err %v; want one row without the model, got %+v", code, stderr, err, doc.Predictions)
	}
	if code, _, stderr := prophet("predict", prof, "--memory", "on", "--machine", filepath.Join(dir, "c.ppt")); code != 1 {
		t.Errorf("--memory on with a profile file as machine: status %d, stderr %q", code, stderr)
	}
	plain := filepath.Join(dir, "p.ppt")
	tr2 := tree.New(tree.Sec("s", tree.Task("t", tree.U(5))))
	tr2.Meta.CountersNote = "hardware counters unavailable: test"
	tree.WriteFile(plain, tr2)
	if code, out, _ := prophet("tree", plain); code != 0 || !strings.Contains(out, "hardware counters unavailable: test") {
		t.Errorf("tree without counters does not say why:\n%s", out)
	}
}

// TestMain keeps the tests away from the user's own machine profile: the
// default path is under a configuration directory of the test's own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "prophet-test-config")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestBuildVersion(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, baseVersion},
		{"a released module", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}}, "0.3.1"},
		{"a development build", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, baseVersion + "-devel"},
		{"with a revision", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, baseVersion + "-devel+0123456789ab-dirty"},
	}
	for _, tc := range tests {
		if got := buildVersion(tc.bi, tc.bi != nil); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if code, out, _ := prophet("--version"); code != 0 || out != "prophet "+version+"\n" {
		t.Errorf("--version: status %d, %q", code, out)
	}
}

// TestPredictShortLockNote checks that predict says when a lock is held
// for short moments and much of the time (report.ShortLockNotes), and
// only where a prediction runs more than one thread.
func TestPredictShortLockNote(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, task ...*tree.Node) string {
		path := filepath.Join(dir, name)
		if err := tree.WriteFile(path, tree.New(tree.Sec("loop", tree.Run(1000, tree.Task("t", task...))))); err != nil {
			t.Fatal(err)
		}
		return path
	}
	short := write("short.ppt", tree.U(100), tree.L(1, 100), tree.U(100))
	long := write("long.ppt", tree.U(100), tree.L(1, 5000), tree.U(100))
	for _, tc := range []struct {
		name, prof, threads string
		want                bool
	}{
		{"short lock", short, "1,2", true},
		{"one thread", short, "1", false},
		{"long lock", long, "1,2", false},
	} {
		code, out, stderr := prophet("predict", tc.prof, "--threads", tc.threads, "--schedule", "static", "--machine", "builtin")
		if code != 0 {
			t.Fatalf("%s: status %d, stderr %q", tc.name, code, stderr)
		}
		if got := strings.Contains(out, "take turns at it"); got != tc.want {
			t.Errorf("%s: short-lock note shown %v, want %v; output:\n%s", tc.name, got, tc.want, out)
		}
	}
}

// TestPredictFineSpawnNote checks that predict says when ff's spawn
// predictions are for tasks short enough to be its least accurate
// (report.FineSpawnNotes), and only where it predicts a goroutine per
// task at more than one thread without the synthesizer.
func TestPredictFineSpawnNote(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int64, ns int64) string {
		path := filepath.Join(dir, name)
		if err := tree.WriteFile(path, tree.New(tree.Sec("loop", tree.Run(n, tree.Task("t", tree.U(ns)))))); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fine := write("fine.ppt", 20_000, 300)
	for _, tc := range []struct {
		name, prof, sched, threads, emu string
		want                            bool
	}{
		{"spawn", fine, "static,spawn", "1,2", "ff", true},
		{"errgroup", fine, "errgroup", "2", "ff", true},
		{"with syn", fine, "spawn", "2", "ff,syn", false},
		{"no spawn", fine, "static,dynamic:1", "1,2", "ff", false},
		{"one thread", fine, "spawn", "1", "ff", false},
		{"long tasks", write("long.ppt", 20_000, 5000), "spawn", "2", "ff", false},
		{"few tasks", write("few.ppt", 1000, 300), "spawn", "2", "ff", false},
	} {
		code, out, stderr := prophet("predict", tc.prof, "--threads", tc.threads, "--schedule", tc.sched, "--emulator", tc.emu, "--machine", "builtin")
		if code != 0 {
			t.Fatalf("%s: status %d, stderr %q", tc.name, code, stderr)
		}
		if got := strings.Contains(out, "least accurate"); got != tc.want {
			t.Errorf("%s: fine-spawn note shown %v, want %v; output:\n%s", tc.name, got, tc.want, out)
		}
	}
}
