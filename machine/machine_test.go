package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	p := Default()
	p.CPU, p.Cores = "Test CPU", 16
	p.Walk = Walk{NodeNs: 24, CallNs: 17}
	p.Memory = &Memory{
		Psi:           map[int]Fit{2: {Form: "linear", A: 1.35, B: 1758, R2: 0.99, MinX: 2000}},
		Phi:           Fit{Form: "power", A: 101481, B: -0.964, R2: 0.95},
		MinTrafficMBs: 2000,
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	q, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if q.CPU != p.CPU || q.Cores != 16 || q.Overheads != p.Overheads || q.Walk != p.Walk || q.Memory == nil ||
		q.Memory.Psi[2] != p.Memory.Psi[2] || q.Memory.Phi != p.Memory.Phi {
		t.Errorf("round trip changed the profile:\n got %+v\nwant %+v", q, p)
	}
}

func TestDefaultLeavesWalkToTheSynthesizer(t *testing.T) {
	// The synthesizer measures its walking costs where it replays when
	// the profile has none; a built-in guess would be subtracted instead.
	if w := Default().Walk; w != (Walk{}) {
		t.Errorf("Default().Walk = %+v, want the zero Walk", w)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		return path
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "none.json"), "no such file"},
		{"not json", write("bad.json", "hello"), "not a prophet machine profile"},
		{"future version", write("v9.json", `{"version": 9}`), "version 9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%s) = %v, want an error mentioning %q", tc.name, err, tc.want)
			}
		})
	}
}

func TestSaveLeavesNothingHalfWritten(t *testing.T) {
	err := Default().Save(filepath.Join(t.TempDir(), "no", "such", "dir", "m.json"))
	if err == nil {
		t.Fatal("Save into a missing directory succeeded")
	}
}

func TestLockSpin(t *testing.T) {
	d := Default().Overheads
	tests := []struct {
		name       string
		ov         Overheads
		spin, ramp float64
	}{
		{"measured", Overheads{LockSpinNs: 1500, LockSpinRampNs: 300}, 1500, 300},
		{"step", Overheads{LockSpinNs: 1500}, 1500, 0},
		{"negative ramp", Overheads{LockSpinNs: 1500, LockSpinRampNs: -5}, 1500, 0},
		{"not measured", Overheads{LockHandoffNs: 1000}, d.LockSpinNs, d.LockSpinRampNs},
	}
	for _, tc := range tests {
		spin, ramp := tc.ov.LockSpin()
		if spin != tc.spin || ramp != tc.ramp {
			t.Errorf("%s: LockSpin() = %v, %v; want %v, %v", tc.name, spin, ramp, tc.spin, tc.ramp)
		}
	}
	if !(d.LockSpinNs > 0) {
		t.Errorf("Default has no spin window")
	}
}

func TestLateStartNs(t *testing.T) {
	tests := []struct {
		o    Overheads
		want float64
	}{
		{Overheads{WakeP50Ns: 16000, RunnextNs: 74000}, 90000},
		{Overheads{WakeP50Ns: 16000}, 16000},
		{Overheads{WakeP50Ns: -5, RunnextNs: 7}, 7},
	}
	for _, tc := range tests {
		if got := tc.o.LateStartNs(); got != tc.want {
			t.Errorf("%+v: LateStartNs %v, want %v", tc.o, got, tc.want)
		}
	}
}
