package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/tree"
	"golang.org/x/sys/unix"
)

// TestOutputsNeverReplace hands every command that writes a file a
// destination it must not replace: a device, a FIFO, a directory, its
// own input. Each gives one sentence and exit 1, and the thing is still
// there afterwards.
func TestOutputsNeverReplace(t *testing.T) {
	prof := triangle(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"report to a device", []string{"report", prof, "-o", os.DevNull}, "character device"},
		{"report over its input", []string{"report", prof, "-o", prof}, "which this command reads"},
		{"plot to a FIFO", []string{"predict", prof, "--plot", fifo}, "named pipe"},
		{"timeline to a directory", []string{"predict", prof, "--timeline", dir}, "directory"},
		{"timeline over its input", []string{"predict", prof, "--timeline", prof}, "which this command reads"},
		{"calibrate into a missing directory", []string{"calibrate", "-o", filepath.Join(dir, "missing", "m.json")}, "no such file"},
		{"calibrate to a device", []string{"calibrate", "-o", os.DevNull}, "character device"},
		{"validate plot to a device", []string{"validate", "--samples", "1", "--plot", os.DevNull}, "character device"},
		{"run to a FIFO", []string{"run", "-o", fifo, "--", "true"}, "named pipe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, _, stderr := prophet(tc.args...)
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("status %d, stderr %q; want 1 and one sentence saying %q", code, stderr, tc.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v: the destination must be checked before the work", d)
			}
		})
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s is no longer a device", os.DevNull)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced")
	}
	if _, _, err := readProfileOK(prof); err != nil {
		t.Errorf("the input profile was damaged: %v", err)
	}
}

// readProfileOK reads a profile through the tree command.
func readProfileOK(path string) (int, string, error) {
	code, out, stderr := prophet("tree", path)
	if code != 0 {
		return code, out, &usageError{msg: stderr}
	}
	return code, out, nil
}

// TestRunKeepsWhatItWasGiven: prophet run exits with its program's
// status (128+n for a signal), keeps a valid profile whatever the status,
// and passes SIGTERM on, leaving no temporary files behind.
func TestRunKeepsWhatItWasGiven(t *testing.T) {
	bin := buildRace(t, "exits", false)
	dir := t.TempDir()
	prof := filepath.Join(dir, "p.ppt")
	tests := []struct {
		args    []string
		code    int
		profile bool
		want    string
	}{
		{[]string{"status", "0"}, 0, true, "profile written"},
		{[]string{"status", "3"}, 3, true, "which is kept"},
		{[]string{"nostop", "4"}, 4, false, "exited with status 4; no profile written"},
		{[]string{"kill"}, 128 + 9, true, "killed by signal 9"},
	}
	for _, tc := range tests {
		os.Remove(prof)
		code, _, stderr := prophet(append([]string{"run", "-o", prof, "--", bin}, tc.args...)...)
		_, err := os.Stat(prof)
		if code != tc.code || (err == nil) != tc.profile || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: status %d, profile kept %v, stderr %q; want %d, %v and %q", tc.args, code, err == nil, stderr, tc.code, tc.profile, tc.want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".prophet-run-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRunPassesSIGTERM runs prophet itself as a process and sends it
// SIGTERM while its program runs.
func TestRunPassesSIGTERM(t *testing.T) {
	bin := buildRace(t, "exits", false)
	self := filepath.Join(t.TempDir(), "prophet")
	if out, err := exec.Command("go", "build", "-o", self, ".").CombinedOutput(); err != nil {
		t.Fatalf("building prophet: %v\n%s", err, out)
	}
	dir, tmp := t.TempDir(), t.TempDir()
	cmd := exec.Command(self, "run", "-o", filepath.Join(dir, "p.ppt"), "--", bin, "sleep")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(unix.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+15 || !strings.Contains(stderr.String(), "passed on") {
		t.Errorf("prophet after SIGTERM: %v, stderr %q; want status 143 and a sentence", err, stderr.String())
	}
	for _, d := range []string{dir, tmp} {
		if left, _ := filepath.Glob(filepath.Join(d, "*prophet-run-*")); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
}

func TestParseThreads(t *testing.T) {
	tests := []struct {
		in   string
		want string // the list, or the error's words
	}{
		{"1,2,4", "[1 2 4]"},
		{"1-3,8", "[1 2 3 8]"},
		{" 2 , 4 ", "[2 4]"},
		{"", "no thread count"},
		{"1,,2", "empty item"},
		{"1,2,", "empty item"},
		{"-1", "out of range"},
		{"0", "out of range"},
		{"2000", "out of range"},
		{"x", "not a number"},
		{"4-2", "LOW-HIGH"},
	}
	for _, tc := range tests {
		got, err := parseThreads(tc.in)
		s := fmt.Sprint(got)
		if err != nil {
			s = err.Error()
		}
		if !strings.Contains(s, tc.want) {
			t.Errorf("parseThreads(%q) = %s, want %s", tc.in, s, tc.want)
		}
	}
}

// TestNoSilentAnswers: asked for what it cannot answer, a command says
// so in one sentence and fails, instead of an empty table.
func TestNoSilentAnswers(t *testing.T) {
	prof := triangle(t)
	many := fmt.Sprint(runtime.NumCPU() + 1)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"predict", prof, "--emulator", "syn", "--threads", many, "--schedule", "static"}, 1, "no prediction to show"},
		{[]string{"predict", prof, "--threads", "-1"}, 2, "out of range"},
		{[]string{"predict", prof, "--threads", "1,,2"}, 2, "empty item"},
		{[]string{"demo", "--scale", "0"}, 2, "--scale"},
		{[]string{"validate", "--threads", many, "--samples", "1", "--machine", "builtin"}, 1, "no thread count"},
	}
	for _, tc := range tests {
		code, _, stderr := prophet(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "validate: validate:") {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestTinyProfilesHugeTrees: a few hundred bytes can stand for 10^12
// tasks through shared subtrees and nesting. The commands that only read
// the compressed tree answer in a moment; the ones that emulate stop
// with a sentence naming the budget: at once where the nested sections
// alone are over it, else once the emulations have spent it (here a
// budget of 2·10^7 steps, a fraction of a second).
func TestTinyProfilesHugeTrees(t *testing.T) {
	dir := t.TempDir()
	inner := tree.Sec("inner", tree.Run(1<<20, tree.Task("leaf", tree.U(10))))
	shared := tree.New(tree.Sec("outer", tree.Run(1<<20, tree.Task("o", inner))))
	n := tree.Task("leaf", tree.U(5))
	for range 4 {
		n = tree.Task("t", tree.Sec("s", tree.Run(1000, n)))
	}
	nested := tree.New(tree.Sec("top", n))
	// Each level's section holds the level below eight times, shared:
	// 8^8 nodes when printed, from a file of a few hundred bytes.
	w := tree.Task("leaf", tree.U(7))
	for range 8 {
		w = tree.Task("t", tree.Sec("s", w, w, w, w, w, w, w, w))
	}
	wide := tree.New(tree.Sec("top", w))
	for name, tr := range map[string]*tree.Tree{"shared": shared, "nested": nested, "wide": wide} {
		path := filepath.Join(dir, name+".ppt")
		if err := tree.WriteFile(path, tr); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"predict", path},
			{"predict", path, "--threads", "2-16", "--schedule", "static", "--timeline", filepath.Join(dir, "t.json")},
			{"report", path, "-o", filepath.Join(dir, "r.html")},
			{"whatif", path, "--region", "leaf", "--faster", "2"},
		} {
			if name != "nested" {
				args = append(args, "--budget", "2e7")
			}
			start := time.Now()
			code, _, stderr := prophet(args...)
			if code != 1 || !strings.Contains(stderr, "budget") || time.Since(start) > 5*time.Second {
				t.Errorf("%s %v: status %d after %v, stderr %q; want 1 at once, naming the budget", name, args[0], code, time.Since(start), stderr)
			}
		}
		for _, args := range [][]string{{"tree", path}, {"tree", path, "--format", "json"}, {"analyze", path}, {"whatif", path, "--target-parallelism", "1e9"}} {
			start := time.Now()
			code, out, stderr := prophet(args...)
			if code != 0 && !strings.Contains(stderr, "cannot be reached") || len(out) > 20<<20 || time.Since(start) > 5*time.Second {
				t.Errorf("%s %v: status %d, %d bytes out after %v, stderr %q", name, args, code, len(out), time.Since(start), stderr)
			}
		}
	}
	if code, _, stderr := prophet("predict", triangle(t), "--budget", "-1"); code != 2 || !strings.Contains(stderr, "--budget") {
		t.Errorf("--budget -1: status %d, stderr %q", code, stderr)
	}
}

// TestLongLoops: a regular loop of 10^7 tasks, which ff predicts in
// closed form or in whole cycles in a few thousand steps, is predicted
// within a budget far smaller than its task count, with every schedule.
// Of a loop whose task lengths alternate, which ff emulates task by
// task, the predictions that fit the budget are shown and the others
// left out with a note naming them; with none left, the command fails
// naming the budget.
func TestLongLoops(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular.ppt")
	if err := tree.WriteFile(regular, tree.New(tree.Sec("loop", tree.Run(10_000_000, tree.Task("t", tree.U(300)))))); err != nil {
		t.Fatal(err)
	}
	tasks := make([]*tree.Node, 20_000)
	for i := range tasks {
		tasks[i] = tree.Task("t", tree.U(int64(300+i%2)))
	}
	alternating := filepath.Join(dir, "alternating.ppt")
	if err := tree.WriteFile(alternating, tree.New(tree.Sec("loop", tasks...))); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := prophet("predict", regular, "--machine", "builtin", "--budget", "1e7", "--format", "csv", "--threads", "1,2,16")
	if code != 0 || strings.Count(out, "\n") < 16 || strings.Contains(out, "left out") {
		t.Errorf("regular loop: status %d, stdout %q, stderr %q", code, out, stderr)
	}
	// static takes 1.5-2·10^5 steps here, spawn at 16 threads about
	// four times as many.
	code, out, stderr = prophet("predict", alternating, "--machine", "builtin", "--budget", "1e6", "--threads", "16", "--schedule", "static,spawn")
	if code != 0 || !strings.Contains(out, "ff static") || !strings.Contains(out, "ff spawn") && !strings.Contains(out, "ff spawn at 16 threads") {
		t.Errorf("alternating loop, static and spawn: status %d, stdout %q, stderr %q", code, out, stderr)
	}
	// CSV has no room for notes: they go to stderr.
	code, out, stderr = prophet("predict", alternating, "--machine", "builtin", "--budget", "1e6", "--threads", "16", "--schedule", "static,spawn", "--format", "csv")
	if code != 0 || !strings.Contains(out, "ff,static,16") || !strings.Contains(out, "ff,spawn,16") && !strings.Contains(stderr, "note: left out") {
		t.Errorf("alternating loop, CSV: status %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, _, stderr = prophet("predict", alternating, "--machine", "builtin", "--budget", "1e4", "--threads", "16", "--schedule", "spawn")
	if code != 1 || !strings.Contains(stderr, "no prediction to show") || !strings.Contains(stderr, "budget") || !strings.Contains(stderr, "spawn at 16 threads") {
		t.Errorf("alternating loop, spawn on a small budget: status %d, stderr %q; want 1, naming the budget and the prediction", code, stderr)
	}
}

// TestMeasure times a real program at 1 and 2 threads and draws its
// curve over the predictions.
func TestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs")
	}
	dir := t.TempDir()
	curve := filepath.Join(dir, "curve.json")
	code, out, stderr := prophet("measure", "--threads", "1,2", "--repeats", "3", "--max-repeats", "3", "-o", curve, "--", "true")
	if code != 0 || !strings.Contains(out, "speedup") || !strings.Contains(stderr, "curve written") {
		t.Fatalf("measure: status %d, stderr %q, out:\n%s", code, stderr, out)
	}
	m, err := readMeasured(curve)
	if err != nil || len(m.Points) != 2 || m.Points[0].Threads != 1 || m.Points[1].Rounds != 3 || m.Points[0].Speedup != 1 {
		t.Fatalf("curve %+v, %v: want 1 and 2 threads, 3 rounds each, speedup 1 at 1 thread", m, err)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, stderr := prophet("report", triangle(t), "-o", html, "--threads", "1,2", "--measured", curve); code != 0 {
		t.Fatalf("report --measured: status %d, %s", code, stderr)
	}
	if page, _ := os.ReadFile(html); !bytes.Contains(page, []byte("measured")) {
		t.Error("the report does not draw the measured curve")
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"measure", "--", "go", "run", "./x"}, 2, "go build"},
		{[]string{"measure"}, 2, "name the program"},
		{[]string{"measure", "--repeats", "5", "--max-repeats", "2", "--", "true"}, 2, "--repeats"},
		{[]string{"measure", "--threads", "1", "--repeats", "1", "--max-repeats", "1", "--", "false"}, 1, "exited with status 1"},
		{[]string{"report", triangle(t), "-o", html, "--measured", triangle(t)}, 1, "--measured"},
	} {
		code, _, stderr := prophet(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
