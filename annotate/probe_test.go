package annotate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/tree"
)

// TestProbe runs a probe in-process around a loop of three top-level
// sections: the middle one runs beside a bandit where there are two
// cores, and no recording may start meanwhile.
func TestProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	raw, err := Probe(memprobe.Options{BufferBytes: 4 << 20, CurveTime: 1e6, MinRunNs: 1}, func() {
		for range 3 {
			SecBegin("s")
			Task("t", func() {
				if _, err := Record(func() {}); !errors.Is(err, ErrProbing) && err != nil {
					t.Errorf("Record inside a probe: %v", err)
				}
			})
			SecEnd(false)
		}
		if _, err := Probe(memprobe.Options{}, func() {}); !errors.Is(err, ErrProbing) {
			t.Errorf("a second probe: %v, want ErrProbing", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Cores >= 2 && (len(raw.Runs) != 3 || raw.Runs[1].Bandits != 1) {
		t.Errorf("runs %+v", raw.Runs)
	}
	if rec.probe.Load() != nil {
		t.Error("the probe is still installed")
	}
}

// TestProbeFromEnv starts a probe run as prophet run does and checks
// the file Stop writes.
func TestProbeFromEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("streams memory")
	}
	dir := t.TempDir()
	prof := filepath.Join(dir, "plain.ppt")
	if err := tree.WriteFile(prof, tree.New(tree.Sec("s", tree.Task("t", tree.U(5))))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "probe.json")
	env := map[string]string{EnvProbe: out, EnvProbeProfile: prof}
	if err := startProbeFromEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	SecBegin("s")
	SecEnd(false)
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var raw memprobe.Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	// "s" ran once in the plain recording: its one run is measured
	// beside a bandit.
	if raw.Cores >= 2 && (len(raw.Runs) != 1 || raw.Runs[0].Bandits != 1) {
		t.Errorf("raw %+v", raw)
	}
	// A plain profile that cannot be read is reported by Stop.
	env[EnvProbeProfile] = filepath.Join(dir, "missing.ppt")
	startProbeFromEnv(func(k string) string { return env[k] })
	if err := Stop(); err == nil {
		t.Error("Stop after a failed probe start: no error")
	}
}
