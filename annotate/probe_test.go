package annotate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// TestProbe runs a probe in-process around a loop of three top-level
// sections: the middle one runs beside a bandit where there are two
// cores, and no other recording or probe may start meanwhile.
func TestProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	raw, err := Probe(memprobe.Options{BufferBytes: 4 << 20, CurveTime: 1e6, MinRunNs: 1}, func() {
		for range 3 {
			SecBegin("s")
			Task("t", func() {
				if _, err := Record(func() {}); !errors.Is(err, ErrRecording) {
					t.Errorf("Record inside a probe: %v, want ErrRecording", err)
				}
			})
			SecEnd(false)
		}
		if _, err := Probe(memprobe.Options{}, func() {}); !errors.Is(err, ErrRecording) {
			t.Errorf("a second probe: %v, want ErrRecording", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Cores >= 2 && (len(raw.Runs) != 3 || raw.Runs[1].Bandits != 1) {
		t.Errorf("runs %+v", raw.Runs)
	}
	if rec.probe.Load() != nil || Recording() {
		t.Error("the probe or its recording is still installed")
	}
}

// TestRecordProbed records a section's first run of ten tasks of 400 µs
// in-process with a probe beside it: the run is measured in blocks of at
// least 1 ms, some beside bandits, and the recording has every task.
func TestRecordProbed(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	tr, raw, err := RecordProbed(profiler.Options{}, memprobe.Options{}, func() {
		SecBegin("s")
		for range 10 {
			Task("t", func() { spinFor(400 * time.Microsecond) })
		}
		SecEnd(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	if tot := tr.Totals(); tot.Tasks != 10 {
		t.Errorf("recorded %d tasks", tot.Tasks)
	}
	if raw.Cores >= 2 && (len(raw.Runs) != 1 || !raw.Runs[0].Blocked || len(raw.Blocks) < 3 || raw.Blocks[1].Bandits != 1) {
		t.Errorf("raw %+v", raw)
	}
	// An annotation error fails it, and leaves nothing installed.
	if _, _, err := RecordProbed(profiler.Options{}, memprobe.Options{}, func() { SecEnd(false) }); err == nil {
		t.Error("a SecEnd without SecBegin: no error")
	}
	if rec.probe.Load() != nil || Recording() {
		t.Error("the probe or its recording is still installed")
	}
}

// spinFor keeps the CPU busy for d.
func spinFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// readRaw reads the measurements a probe wrote to path.
func readRaw(t *testing.T, path string) memprobe.Raw {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw memprobe.Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestProbeBesideRecording records and probes in one run, as prophet run
// does: the profile and the measurements are both written, and the
// time the probe spent starting and stopping bandits and measuring its
// references (a millisecond or more) is in no interval of the recording
// and not counted as paused.
func TestProbeBesideRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	dir := t.TempDir()
	prof, out := filepath.Join(dir, "p.ppt"), filepath.Join(dir, "probe.json")
	env := map[string]string{EnvVar: prof, EnvProbe: out}
	getenv := func(k string) string { return env[k] }
	pr := probeBeside(getenv)
	if err := startFromEnv(getenv); err != nil {
		t.Fatal(err)
	}
	installProbe(pr, out)
	for !rec.probe.Load().Ready() {
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		SecBegin("s")
		for range 10 {
			Task("t", func() { spinFor(400 * time.Microsecond) })
		}
		SecEnd(false)
	}
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
	if rec.probe.Load() != nil || Recording() {
		t.Error("the probe or the recording is still on")
	}
	tr, err := tree.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if tot := tr.Totals(); tot.Sections != 3 || tot.Tasks != 30 {
		t.Errorf("recorded %d sections, %d tasks", tot.Sections, tot.Tasks)
	}
	raw := readRaw(t, out)
	if raw.Cores < 2 {
		return
	}
	if len(raw.Runs) != 3 || !raw.Runs[0].Blocked || raw.Runs[1].Bandits != 1 || len(raw.Blocks) < 3 {
		t.Errorf("raw %+v", raw)
	}
	if tr.Meta.PausedNs != 0 {
		t.Errorf("paused %d ns", tr.Meta.PausedNs)
	}
	// Between the tasks of the sections: only the annotations' own time.
	var gaps int64
	for _, s := range tr.Root.Children {
		if s.Kind != tree.KindSec {
			continue
		}
		gaps += tree.Work(s)
		for _, c := range s.Children {
			if c.Kind == tree.KindTask {
				gaps -= tree.Work(c)
			}
		}
	}
	if gaps > 500_000 {
		t.Errorf("%d ns between the tasks of the sections", gaps)
	}
}
