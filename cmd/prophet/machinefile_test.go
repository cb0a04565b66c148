package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/machine"
)

// countingMeasure returns a measure hook that counts its calls and
// returns fakeMachine's profile with a fork cost of forkNs, so that the
// profile a command used can be told apart from the built-in one.
func countingMeasure(calls *int, forkNs float64) func(context.Context, io.Writer) (machine.Profile, error) {
	return func(ctx context.Context, w io.Writer) (machine.Profile, error) {
		*calls++
		m, err := fakeMachine(ctx, w)
		m.Overheads.ForkNs = forkNs
		return m, err
	}
}

// configDir points the user configuration directory at a fresh one for
// the test and returns the default machine profile's path there.
func configDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	path, err := machine.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFirstUseMeasuresOnceAndSaves(t *testing.T) {
	def := configDir(t)
	prof := triangle(t)
	calls := 0
	e := &env{measure: countingMeasure(&calls, 777)}
	code, _, stderr := prophetWith(e, "predict", prof, "--threads", "2")
	if code != 0 || calls != 1 {
		t.Fatalf("first predict: status %d, %d measurements (want 0 and 1), stderr %q", code, calls, stderr)
	}
	if !strings.Contains(stderr, "no machine profile yet") || !strings.Contains(stderr, "saved to "+def) {
		t.Errorf("first use does not say it measured and where it saved: %q", stderr)
	}
	m, err := machine.Load(def)
	if err != nil || m.Overheads.ForkNs != 777 {
		t.Fatalf("saved profile: %v, fork %v; want the measured 777", err, m.Overheads.ForkNs)
	}
	// Later commands that predict read it; none measures again.
	for _, args := range [][]string{
		{"predict", prof, "--threads", "2"},
		{"analyze", prof},
		{"whatif", prof, "--region", "row", "--faster", "2", "--threads", "2"},
		{"report", prof, "-o", filepath.Join(t.TempDir(), "r.html"), "--threads", "2"},
	} {
		code, _, stderr := prophetWith(e, args...)
		if code != 0 || calls != 1 || strings.Contains(stderr, "measuring") {
			t.Errorf("%s after the first use: status %d, %d measurements, stderr %q", args[0], code, calls, stderr)
		}
	}
	// The built-in defaults' note is gone: the overheads are this
	// machine's.
	_, out, _ := prophetWith(e, "predict", prof, "--threads", "2")
	if strings.Contains(out, "built-in defaults") {
		t.Errorf("predict with a saved profile still speaks of built-in defaults:\n%s", out)
	}
}

func TestFirstUseEveryPredictingCommand(t *testing.T) {
	prof := triangle(t)
	for _, args := range [][]string{
		{"predict", prof, "--threads", "2"},
		{"analyze", prof},
		{"whatif", prof, "--region", "row", "--faster", "2", "--threads", "2"},
		{"report", prof, "-o", filepath.Join(t.TempDir(), "r.html"), "--threads", "2"},
	} {
		configDir(t)
		calls := 0
		code, _, stderr := prophetWith(&env{measure: countingMeasure(&calls, 1)}, args...)
		if code != 0 || calls != 1 {
			t.Errorf("%s with no machine profile: status %d, %d measurements (want 1), stderr %q", args[0], code, calls, stderr)
		}
	}
}

func TestMachineBuiltinAndReadOnlyCommands(t *testing.T) {
	def := configDir(t)
	prof := triangle(t)
	calls := 0
	e := &env{measure: countingMeasure(&calls, 1)}
	code, out, stderr := prophetWith(e, "predict", prof, "--threads", "2", "--machine", "builtin")
	if code != 0 || calls != 0 || !strings.Contains(out, "built-in defaults") {
		t.Errorf("--machine builtin: status %d, %d measurements, stderr %q, out:\n%s", code, calls, stderr, out)
	}
	if code, _, stderr := prophetWith(e, "tree", prof); code != 0 || calls != 0 {
		t.Errorf("tree measured the machine: status %d, %d measurements, stderr %q", code, calls, stderr)
	}
	if _, err := os.Stat(def); err == nil {
		t.Errorf("a profile was saved without a measurement")
	}
}

func TestProfileFromAnotherMachine(t *testing.T) {
	def := configDir(t)
	prof := triangle(t)
	other := machine.Default()
	other.CPU, other.Cores = "Some Other CPU", 999
	other.Overheads.ForkNs = 5
	if err := os.MkdirAll(filepath.Dir(def), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := other.Save(def); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "other.json")
	if err := other.Save(named); err != nil {
		t.Fatal(err)
	}
	calls := 0
	e := &env{measure: countingMeasure(&calls, 333)}
	// Named with --machine: used as given, with a note.
	code, _, stderr := prophetWith(e, "predict", prof, "--threads", "2", "--machine", named)
	if code != 0 || calls != 0 || !strings.Contains(stderr, "another machine") || !strings.Contains(stderr, "Some Other CPU") {
		t.Errorf("--machine from another machine: status %d, %d measurements, stderr %q", code, calls, stderr)
	}
	// tree reads only: the built-in overheads, with a note.
	code, _, stderr = prophetWith(e, "tree", prof)
	if code != 0 || calls != 0 || !strings.Contains(stderr, "another machine") {
		t.Errorf("tree with another machine's saved profile: status %d, %d measurements, stderr %q", code, calls, stderr)
	}
	// The saved default: measured again and replaced.
	code, _, stderr = prophetWith(e, "predict", prof, "--threads", "2")
	if code != 0 || calls != 1 || !strings.Contains(stderr, "another machine") || !strings.Contains(stderr, "saved to") {
		t.Errorf("saved profile from another machine: status %d, %d measurements, stderr %q", code, calls, stderr)
	}
	m, err := machine.Load(def)
	sys := calibrate.ReadSystem()
	if err != nil || m.CPU != sys.CPU || m.Cores != sys.Cores || m.Overheads.ForkNs != 333 {
		t.Errorf("the saved profile was not replaced by this machine's: %+v, %v", m, err)
	}
}

func TestFirstUseFailures(t *testing.T) {
	prof := triangle(t)
	t.Run("corrupt saved profile", func(t *testing.T) {
		def := configDir(t)
		os.MkdirAll(filepath.Dir(def), 0o755)
		os.WriteFile(def, []byte("{not json"), 0o644)
		calls := 0
		e := &env{measure: countingMeasure(&calls, 1)}
		code, _, stderr := prophetWith(e, "tree", prof)
		if code != 0 || calls != 0 || !strings.Contains(stderr, def) {
			t.Errorf("tree with a corrupt saved profile: status %d, %d measurements, stderr %q; want 0, 0 and the path named", code, calls, stderr)
		}
		code, _, stderr = prophetWith(e, "predict", prof, "--threads", "2")
		if code != 0 || calls != 1 {
			t.Errorf("predict with a corrupt saved profile: status %d, %d measurements, stderr %q", code, calls, stderr)
		}
		if _, err := machine.Load(def); err != nil {
			t.Errorf("the corrupt profile was not replaced: %v", err)
		}
	})
	t.Run("measurement fails", func(t *testing.T) {
		configDir(t)
		e := &env{measure: func(context.Context, io.Writer) (machine.Profile, error) {
			return machine.Profile{}, errors.New("interrupted")
		}}
		code, _, stderr := prophetWith(e, "predict", prof)
		if code != 1 || !strings.Contains(stderr, "measuring this machine") || !strings.Contains(stderr, "interrupted") {
			t.Errorf("a failed measurement: status %d, stderr %q; want 1 and one sentence", code, stderr)
		}
	})
	t.Run("cannot save", func(t *testing.T) {
		def := configDir(t)
		// A file where the profile's directory should be.
		os.WriteFile(filepath.Dir(def), []byte("x"), 0o644)
		calls := 0
		e := &env{measure: countingMeasure(&calls, 1)}
		code, _, stderr := prophetWith(e, "predict", prof, "--threads", "2")
		if code != 0 || calls != 1 || !strings.Contains(stderr, "could not save") {
			t.Errorf("an unwritable config directory: status %d, %d measurements, stderr %q", code, calls, stderr)
		}
	})
}

// TestDisturbedFirstUseNotSaved measures beside another process that
// spins: the profile serves the run but is not saved.
func TestDisturbedFirstUseNotSaved(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads other programs' CPU time from /proc/stat")
	}
	def := configDir(t)
	prof := triangle(t)
	e := &env{measure: func(ctx context.Context, w io.Writer) (machine.Profile, error) {
		// The spinning shell is started in the background by a shell
		// that exits at once, so it is no child of this process: the
		// CPU time of children that ended counts as this process's own.
		out, err := exec.Command("sh", "-c", "sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			t.Skipf("no shell to spin: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("pid %q: %v", out, err)
		}
		time.Sleep(500 * time.Millisecond)
		syscall.Kill(pid, syscall.SIGKILL)
		return fakeMachine(ctx, w)
	}}
	code, _, stderr := prophetWith(e, "predict", prof, "--threads", "2")
	if code != 0 || !strings.Contains(stderr, "not saved") {
		t.Errorf("a measurement beside a spinning process: status %d, stderr %q; want it used and not saved", code, stderr)
	}
	if _, err := os.Stat(def); err == nil {
		t.Error("a disturbed measurement was saved")
	}
}

// TestOneCoreProfileNote checks that predict says which overheads a
// profile measured on one core took from the built-in values, where it
// predicts two threads or more (one thread charges none of them).
func TestOneCoreProfileNote(t *testing.T) {
	configDir(t)
	prof := triangle(t)
	e := &env{measure: func(ctx context.Context, w io.Writer) (machine.Profile, error) {
		m, err := fakeMachine(ctx, w)
		m.Defaulted = []string{"lock_handoff_ns", "wake_p50_ns"}
		return m, err
	}}
	for _, tc := range []struct {
		threads string
		note    bool
	}{{"2", true}, {"1,4", true}, {"1", false}} {
		code, out, stderr := prophetWith(e, "predict", prof, "--threads", tc.threads)
		if code != 0 {
			t.Fatalf("--threads %s: status %d, stderr %q", tc.threads, code, stderr)
		}
		got := strings.Contains(out, "measured on one core") && strings.Contains(out, "lock_handoff_ns, wake_p50_ns")
		if got != tc.note {
			t.Errorf("--threads %s: one-core note %v, want %v:\n%s", tc.threads, got, tc.note, out)
		}
	}
}
