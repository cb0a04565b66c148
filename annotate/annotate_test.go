package annotate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// readTree reads a profile written by Stop.
func readTree(t *testing.T, path string) *tree.Tree {
	t.Helper()
	tr, err := tree.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestStopWhenNotRecording(t *testing.T) {
	if Recording() {
		t.Fatal("recording at test start")
	}
	if err := Stop(); err != nil {
		t.Errorf("Stop without Start = %v, want nil", err)
	}
	// Calls with recording off are no-ops.
	SecBegin("s")
	TaskEnd()
	LockEnd(3)
	if err := Stop(); err != nil {
		t.Errorf("Stop after stray calls = %v, want nil", err)
	}
}

func TestStartStopWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.ppt")
	if err := Start(path); err != nil {
		t.Fatal(err)
	}
	if err := Start(path); !errors.Is(err, ErrRecording) {
		t.Errorf("second Start = %v, want ErrRecording", err)
	}
	if _, err := Record(func() {}); !errors.Is(err, ErrRecording) {
		t.Errorf("Record while recording = %v, want ErrRecording", err)
	}
	Loop("rows", 4, func(i int) {
		switch i {
		case 0:
			Lock(9, func() {})
		case 2:
			LockIndexed(9, func() {})
		}
	})
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
	if Recording() {
		t.Error("still recording after Stop")
	}
	tr := readTree(t, path)
	if tr.Root == nil || len(tr.Root.Children) == 0 {
		t.Fatalf("empty profile: %+v", tr)
	}
	if tr.Meta.Clock == "" || tr.Meta.Recorded == "" || tr.Meta.EventCostNs <= 0 {
		t.Errorf("profile meta incomplete: %+v", tr.Meta)
	}
	var tasks, locks, indexed int64
	for _, c := range tr.Root.Children {
		if c.Kind != tree.KindSec {
			continue
		}
		if c.Name != "rows" {
			t.Errorf("section %q, want rows", c.Name)
		}
		for task := range c.Expanded() {
			if task.Kind != tree.KindTask {
				continue
			}
			tasks++
			for n := range task.Expanded() {
				if n.Kind == tree.KindL && n.Lock == 9 {
					locks++
					if n.Indexed {
						indexed++
					}
				}
			}
		}
	}
	if tasks != 4 || locks != 2 || indexed != 1 {
		t.Errorf("profile has %d tasks and %d locks (%d indexed), want 4 and 2 (1)", tasks, locks, indexed)
	}
	if err := Stop(); err != nil {
		t.Errorf("second Stop = %v, want nil", err)
	}
}

func TestStopAnnotationErrorWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.ppt")
	if err := Start(path); err != nil {
		t.Fatal(err)
	}
	SecBegin("outer")
	TaskEnd()
	SecEnd(false)
	err := Stop()
	var ae *profiler.AnnotationError
	if !errors.As(err, &ae) {
		t.Fatalf("Stop = %v, want an *profiler.AnnotationError", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a profile was written despite the error (stat: %v)", err)
	}
	if Recording() {
		t.Error("still recording after a failed Stop")
	}
}

func TestStartUnwritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "p.ppt")
	if err := Start(path); err == nil {
		Stop()
		t.Fatal("Start to an unwritable path succeeded")
	}
	if Recording() {
		t.Error("recording after a failed Start")
	}
}

func TestStartFromEnv(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		env     string
		tol     string
		records bool
		errPart string
	}{
		{"unset", "", "", false, ""},
		{"path", filepath.Join(dir, "env.ppt"), "", true, ""},
		{"unwritable", filepath.Join(dir, "missing", "env.ppt"), "", false, "PROPHET_PROFILE="},
		{"tolerance", filepath.Join(dir, "tol.ppt"), "0.01", true, ""},
		{"exact lengths", filepath.Join(dir, "exact.ppt"), " -1 ", true, ""},
		{"tolerance not a number", filepath.Join(dir, "nan.ppt"), "1%", false, "PROPHET_TOLERANCE=1%: not a number"},
		{"tolerance too large", filepath.Join(dir, "big.ppt"), "2", false, "PROPHET_TOLERANCE=2: tolerance 2: must be below 1"},
		{"tolerance without a path", "", "x", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := startFromEnv(func(k string) string {
				switch k {
				case EnvVar:
					return tt.env
				case EnvTolerance:
					return tt.tol
				}
				return ""
			})
			if Recording() != tt.records {
				t.Errorf("Recording() = %v, want %v", Recording(), tt.records)
			}
			if tt.errPart == "" && err != nil {
				t.Errorf("startFromEnv = %v", err)
			}
			if tt.errPart != "" && (err == nil || !strings.Contains(err.Error(), tt.errPart)) {
				t.Errorf("startFromEnv = %v, want an error naming %s", err, tt.errPart)
			}
			if tt.records {
				Loop("l", 2, func(int) {})
			}
			err = Stop()
			if tt.errPart != "" && (err == nil || !strings.Contains(err.Error(), tt.errPart)) {
				t.Errorf("Stop = %v, want the start-up error naming %s", err, tt.errPart)
			}
			if tt.errPart == "" && err != nil {
				t.Fatal(err)
			}
			if err := Stop(); err != nil {
				t.Errorf("second Stop = %v, want nil (the error is reported once)", err)
			}
			if tt.records {
				readTree(t, tt.env)
			}
		})
	}
}

func TestRecord(t *testing.T) {
	tr, err := RecordWith(profiler.Options{NoCounters: true}, func() {
		SecBegin("outer")
		for range 3 {
			TaskBegin("t")
			SecBegin("inner")
			TaskBegin("u")
			TaskEnd()
			SecEnd(true)
			TaskEnd()
		}
		SecEnd(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Validate(tr); err != nil {
		t.Fatal(err)
	}
	if Recording() {
		t.Error("still recording after Record")
	}
	if tr.Meta.CountersNote == "" {
		t.Error("CountersNote empty with counters off")
	}
	var secs int
	for _, c := range tr.Root.Children {
		if c.Kind == tree.KindSec && c.Name == "outer" {
			secs++
		}
	}
	if secs != 1 {
		t.Errorf("%d outer sections, want 1", secs)
	}
}

func TestRecordMisuse(t *testing.T) {
	tests := []struct {
		name string
		fn   func()
		want string
	}{
		{"annotation error", func() { TaskBegin("t") }, "outside any section"},
		{"Stop inside", func() {
			if err := Stop(); err == nil {
				t.Error("Stop inside Record succeeded")
			}
		}, ""},
		{"Start inside", func() {
			if err := Start(filepath.Join(t.TempDir(), "x")); !errors.Is(err, ErrRecording) {
				t.Errorf("Start inside Record = %v, want ErrRecording", err)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RecordWith(profiler.Options{NoCounters: true}, tt.fn)
			if tt.want == "" && err != nil {
				t.Errorf("Record = %v", err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Record = %v, want an error containing %q", err, tt.want)
			}
			if Recording() {
				t.Error("still recording")
			}
		})
	}
}

func TestRecordPanic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("panic swallowed")
		}
		if Recording() {
			t.Error("still recording after a panic")
		}
	}()
	Record(func() { panic("boom") })
}

// TestEnvHelper is run by TestEnvInit in a child process whose
// environment sets PROPHET_PROFILE; it is a no-op otherwise.
func TestEnvHelper(t *testing.T) {
	if os.Getenv("ANNOTATE_ENV_HELPER") != "1" {
		t.Skip("helper process only")
	}
	if !Recording() {
		t.Fatal("PROPHET_PROFILE set but not recording after init")
	}
	Loop("env", 3, func(int) {})
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestEnvInit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	path := filepath.Join(t.TempDir(), "env.ppt")
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ANNOTATE_ENV_HELPER=1", EnvVar+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	tr := readTree(t, path)
	if len(tr.Root.Children) == 0 || tr.Meta.Program == "" {
		t.Errorf("child's profile is empty or lacks its command line: %+v", tr.Meta)
	}
}

func TestEnvTolerance(t *testing.T) {
	tests := []struct {
		env  string
		want float64
	}{{"", 0}, {"0.02", 0.02}, {"-1", -1}}
	for _, tc := range tests {
		var opt profiler.Options
		if err := envTolerance(tc.env, &opt); err != nil || opt.Build.Tolerance != tc.want {
			t.Errorf("envTolerance(%q) = %v, tolerance %v; want %v", tc.env, err, opt.Build.Tolerance, tc.want)
		}
	}
	for _, bad := range []string{"abc", "NaN", "1", "+Inf"} {
		var opt profiler.Options
		if err := envTolerance(bad, &opt); err == nil {
			t.Errorf("envTolerance(%q) = nil, want an error", bad)
		}
	}
}

// TestForeignGoroutines: annotations from goroutines other than the one
// recording, at once or one at a time, are refused with ErrForeign,
// never a panic and never a silent profile.
func TestForeignGoroutines(t *testing.T) {
	concurrent := func() {
		SecBegin("s")
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5000 {
					TaskBegin("t")
					LockBegin(1)
					LockEnd(1)
					TaskEnd()
				}
			}()
		}
		for range 5000 {
			TaskBegin("mine")
			TaskEnd()
		}
		wg.Wait()
		SecEnd(false)
	}
	oneAtATime := func() {
		SecBegin("s")
		done := make(chan struct{})
		go func() {
			TaskBegin("t")
			TaskEnd()
			close(done)
		}()
		<-done
		SecEnd(false)
	}
	for name, fn := range map[string]func(){"concurrent": concurrent, "one at a time": oneAtATime} {
		for range 5 {
			tr, err := Record(fn)
			if !errors.Is(err, profiler.ErrForeign) || tr != nil {
				t.Errorf("%s: Record = %v, %v; want no tree and ErrForeign", name, tr != nil, err)
			}
		}
	}
	// The recording goroutine alone still records.
	if _, err := Record(func() { Loop("l", 3, func(int) {}) }); err != nil {
		t.Errorf("a serial recording after foreign ones: %v", err)
	}
}

// TestPauseResume leaves a stretch out of a recording: its time is in no
// interval and the profile says how long it was; calls in between are
// not recorded.
func TestPauseResume(t *testing.T) {
	spinFor := func(d time.Duration) {
		for start := time.Now(); time.Since(start) < d; {
		}
	}
	tr, err := Record(func() {
		Loop("before", 2, func(int) { spinFor(time.Millisecond) })
		Pause()
		if Recording() {
			t.Error("Recording() while paused")
		}
		SecBegin("ignored") // not recorded
		spinFor(30 * time.Millisecond)
		SecEnd(false)
		Pause() // a second Pause does nothing
		Resume()
		Loop("after", 2, func(int) { spinFor(time.Millisecond) })
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := time.Duration(tr.Meta.PausedNs); p < 25*time.Millisecond || p > 2*time.Second {
		t.Errorf("paused %v, want about 30 ms", p)
	}
	if w := time.Duration(tree.Work(tr.Root)); w > 25*time.Millisecond {
		t.Errorf("work %v: the paused 30 ms were recorded", w)
	}
	for _, n := range tr.Root.Children {
		if n.Name == "ignored" {
			t.Error("a section opened while paused was recorded")
		}
	}
	// Stop while paused: the pause ends the recording.
	path := filepath.Join(t.TempDir(), "p.ppt")
	if err := Start(path); err != nil {
		t.Fatal(err)
	}
	Loop("l", 1, func(int) {})
	Pause()
	spinFor(10 * time.Millisecond)
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, path); got.Meta.PausedNs < int64(8*time.Millisecond) || got.Meta.Tool == "" {
		t.Errorf("stopped while paused: paused %d ns, tool %q; want about 10 ms and the annotate version", got.Meta.PausedNs, got.Meta.Tool)
	}
	Resume() // after Stop: nothing to resume
	if Recording() {
		t.Error("recording after Stop and a stray Resume")
	}
}
