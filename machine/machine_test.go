package machine

import (
	"math"
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

// TestLoadFillsLaterOverheads checks that a profile saved before an
// overhead was measured reads Default's for it, and that one saved after
// keeps its own.
func TestLoadFillsLaterOverheads(t *testing.T) {
	dir := t.TempDir()
	d := Default().Overheads
	tests := []struct {
		name, json string
		want       func(o Overheads) bool
	}{
		{"old", `{"version": 5, "overheads": {"spawn_ns": 300, "lock_ns": 10, "chunk_ns": 17}}`, func(o Overheads) bool {
			return o.SpawnNs == 300 && o.SpawnRunNs == d.SpawnRunNs && o.LockMigrateNs == d.LockMigrateNs &&
				o.ChunkMigrateNs == d.ChunkMigrateNs && o.ChanSendNs == d.ChanSendNs && o.ChanRecvNs == d.ChanRecvNs &&
				o.TaskCallNs == d.TaskCallNs
		}},
		{"new", `{"version": 5, "overheads": {"spawn_ns": 300, "spawn_run_ns": 250, "lock_ns": 10, "lock_migrate_ns": 13,
			"chunk_ns": 17, "chunk_migrate_ns": 3, "task_call_ns": 2, "chan_send_ns": 11, "chan_recv_ns": 30}}`, func(o Overheads) bool {
			return o.SpawnRunNs == 250 && o.LockMigrateNs == 13 && o.ChunkMigrateNs == 3 && o.TaskCallNs == 2 && o.ChanSendNs == 11 && o.ChanRecvNs == 30
		}},
		// Measured as 0: kept.
		{"zero", `{"version": 5, "overheads": {"spawn_ns": 300, "spawn_run_ns": 0, "lock_ns": 10, "lock_migrate_ns": 0,
			"chunk_ns": 17, "chunk_migrate_ns": 0, "task_call_ns": 0, "chan_send_ns": 0, "chan_recv_ns": 0}}`, func(o Overheads) bool {
			return o.SpawnRunNs == 0 && o.LockMigrateNs == 0 && o.ChunkMigrateNs == 0 && o.TaskCallNs == 0 && o.ChanSendNs == 0 && o.ChanRecvNs == 0
		}},
		// Without a spawn, lock or chunk cost there is nothing the later
		// overhead adds to: it stays 0.
		{"none", `{"version": 5, "overheads": {"chan_send_ns": 11}}`, func(o Overheads) bool {
			return o.SpawnRunNs == 0 && o.LockMigrateNs == 0 && o.ChunkMigrateNs == 0
		}},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.want(p.Overheads) {
			t.Errorf("%s: Load gave overheads %+v", tc.name, p.Overheads)
		}
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
		// The last of four checks every 725 ns comes after the window
		// measured; one inside it changes nothing.
		{"last check past the window", Overheads{LockSpinNs: 2800, LockSpinRampNs: 300, LockCheckNs: 725}, 2900, 300},
		{"last check inside the window", Overheads{LockSpinNs: 3000, LockCheckNs: 725}, 3000, 0},
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

// TestSpinCheckNs checks the time between two spin checks: measured,
// else a profile's spin window over SpinChecks, else Default's.
func TestHandoffFor(t *testing.T) {
	// Doze 100 µs hand-offs and 7 µs Unlocks up to waits of 150 µs,
	// 200 µs and 40 µs from 200 µs on.
	dozing := Overheads{LockHandoffNs: 200e3, LockWakeNs: 40e3, LockDozeNs: 150e3, LockDozeRampNs: 50e3, LockDozeHandoffNs: 100e3, LockDozeWakeNs: 7e3}
	step := dozing
	step.LockDozeRampNs = 0
	tests := []struct {
		name              string
		ov                Overheads
		waited            float64
		handoff, unlockNs float64
	}{
		{"doze", dozing, 30e3, 100e3, 7e3},
		{"doze's end", dozing, 150e3, 100e3, 7e3},
		{"ramp's middle", dozing, 175e3, 150e3, 23.5e3},
		{"asleep", dozing, 200e3, 200e3, 40e3},
		{"long asleep", dozing, 5e6, 200e3, 40e3},
		{"step: doze", step, 150e3, 100e3, 7e3},
		{"step: asleep", step, 150.001e3, 200e3, 40e3},
		{"not measured", Overheads{LockHandoffNs: 200e3, LockWakeNs: 40e3}, 30e3, 200e3, 40e3},
		{"negative doze", Overheads{LockHandoffNs: 200e3, LockDozeNs: -1, LockDozeHandoffNs: 100e3}, 30e3, 200e3, 0},
		{"infinite ramp", Overheads{LockHandoffNs: 200e3, LockDozeNs: 1, LockDozeRampNs: math.Inf(1), LockDozeHandoffNs: 100e3}, 30e3, 200e3, 0},
	}
	for _, tc := range tests {
		h, w := tc.ov.HandoffFor(tc.waited)
		if math.Abs(h-tc.handoff) > 1e-6 || math.Abs(w-tc.unlockNs) > 1e-6 {
			t.Errorf("%s: HandoffFor(%v) = %v, %v; want %v, %v", tc.name, tc.waited, h, w, tc.handoff, tc.unlockNs)
		}
	}
}

func TestSpinCheckNs(t *testing.T) {
	tests := []struct {
		name string
		ov   Overheads
		want float64
	}{
		{"measured", Overheads{LockSpinNs: 2800, LockCheckNs: 755}, 755},
		{"spin window only", Overheads{LockSpinNs: 2800}, 700},
		{"not measured", Overheads{LockHandoffNs: 1000}, Default().Overheads.LockCheckNs},
	}
	for _, tc := range tests {
		if got := tc.ov.SpinCheckNs(); got != tc.want {
			t.Errorf("%s: SpinCheckNs() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSpawnRunFor(t *testing.T) {
	line := Overheads{SpawnRunNs: 600, SpawnRunSlope: 0.2, SpawnRunTaskNs: 2000}
	// The line is 260 at 300 ns.
	hot := line
	hot.SpawnRunHotNs, hot.SpawnRunHotTaskNs, hot.SpawnRunShortTaskNs = 100, 120, 300
	hotAbove := hot
	hotAbove.SpawnRunHotNs = 500
	hotOnly := hot
	hotOnly.SpawnRunShortTaskNs = 0
	curve := line
	curve.SpawnRunShortTaskNs = 300
	hotFlat := Overheads{SpawnRunNs: 400, SpawnRunHotNs: 100, SpawnRunHotTaskNs: 100, SpawnRunShortTaskNs: 300}
	tests := []struct {
		name string
		ov   Overheads
		task float64
		want float64
	}{
		{"at the measured task", line, 2000, 600},
		{"longer", line, 1e6, 600},
		{"shorter", line, 200, 600 - 0.2*1800},
		{"empty task", line, 0, 600 - 0.2*2000},
		{"negative task as empty", line, -50, 600 - 0.2*2000},
		{"never below 0", Overheads{SpawnRunNs: 100, SpawnRunSlope: 1, SpawnRunTaskNs: 2000}, 500, 0},
		{"no slope", Overheads{SpawnRunNs: 400}, 100, 400},
		{"slope without its task", Overheads{SpawnRunNs: 400, SpawnRunSlope: 0.2}, 100, 400},
		{"NaN task", line, math.NaN(), 600},
		{"hot start", hot, 50, 100},
		{"at the hot task", hot, 120, 100},
		{"between hot and short", hot, 210, 100 + (260-100)*0.5},
		{"at the short end", hot, 300, 260},
		// From the short end (260 at 300 ns) to the long one (600 at
		// 2000 ns) in the task's logarithm: halfway at their geometric
		// mean.
		{"past the short end", hot, math.Sqrt(300 * 2000), (260 + 600) / 2},
		{"at the long end", hot, 2000, 600},
		{"curve without a hot start", curve, 1000, 260 + 340*math.Log(1000.0/300)/math.Log(2000.0/300)},
		{"curve under the short end", curve, 200, 600 - 0.2*1800},
		{"hot above the line", hotAbove, 50, 600 - 0.2*1950},
		{"hot without a short end", hotOnly, 100, 100},
		{"past hot without a short end", hotOnly, 200, 600 - 0.2*1800},
		{"hot on a flat line", hotFlat, 200, 100 + (400-100)*0.5},
		{"NaN task with hot", hot, math.NaN(), 600},
	}
	for _, tc := range tests {
		if got := tc.ov.SpawnRunFor(tc.task); got != tc.want {
			t.Errorf("%s: SpawnRunFor(%v) = %v, want %v", tc.name, tc.task, got, tc.want)
		}
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

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default is out of range: %v", err)
	}
	mem := func(p *Profile) {
		p.Memory = &Memory{Psi: map[int]Fit{2: {Form: "linear", A: 2}}, Phi: Fit{Form: "power", A: 1, B: 0.5}}
	}
	tests := []struct {
		name   string
		change func(p *Profile)
		want   string // in the error; "" for valid
	}{
		{"memory fits", mem, ""},
		{"negative overhead", func(p *Profile) { p.Overheads.ForkNs = -1 }, "overheads.fork_ns"},
		{"huge overhead", func(p *Profile) { p.Overheads.LockHandoffNs = 1e300 }, "overheads.lock_handoff_ns"},
		{"NaN overhead", func(p *Profile) { p.Overheads.WakeP50Ns = math.NaN() }, "overheads.wake_p50_ns"},
		{"noise too often", func(p *Profile) { p.Overheads.NoiseHz = 1e12 }, "noise_hz"},
		{"noise all the time", func(p *Profile) { p.Overheads.NoiseHz, p.Overheads.NoiseP90Ns = 5e4, 5e4 }, "of a core's time"},
		{"negative walk", func(p *Profile) { p.Walk.NodeNs = -5 }, "walk.node_ns"},
		{"negative cores", func(p *Profile) { p.Cores = -2 }, "cores"},
		{"inflation below 1", func(p *Profile) { p.ComputeInflation = map[int]float64{2: 0.5} }, "compute_inflation[2]"},
		{"inflation at thread 0", func(p *Profile) { p.ComputeInflation = map[int]float64{0: 1.1} }, "thread count 0"},
		{"infinite fit", func(p *Profile) { mem(p); p.Memory.Phi.A = math.Inf(1) }, "memory.phi"},
		{"unknown fit form", func(p *Profile) { mem(p); p.Memory.Psi[2] = Fit{Form: "cubic"} }, "memory.psi[2].form"},
		{"no line size with fits", func(p *Profile) { mem(p); p.LineSize = 0 }, "line_size"},
	}
	for _, tc := range tests {
		p := Default()
		tc.change(&p)
		err := p.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
	// Save writes no out-of-range profile, and Load refuses one written
	// by hand, naming the file and the field.
	path := filepath.Join(t.TempDir(), "m.json")
	if err := Default().Save(path); err != nil {
		t.Fatal(err)
	}
	p := Default()
	p.Overheads.NoiseHz = 1e12
	if err := p.Save(path); err == nil || !strings.Contains(err.Error(), "noise_hz") {
		t.Errorf("Save of an out-of-range profile: %v", err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), `"noise_hz": 600`, `"noise_hz": 1e12`, 1)), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "noise_hz") {
		t.Errorf("Load of an out-of-range profile: %v", err)
	}
}

// TestChunkServe checks that the counter's serving time is ChunkServeNs
// where measured, else ChunkMigrateNs, and never negative.
func TestChunkServe(t *testing.T) {
	tests := []struct {
		o    Overheads
		want float64
	}{
		{Overheads{ChunkMigrateNs: 85, ChunkServeNs: 64}, 64},
		{Overheads{ChunkMigrateNs: 85}, 85},
		{Overheads{ChunkMigrateNs: -3}, 0},
		{Overheads{}, 0},
	}
	for _, tc := range tests {
		if got := tc.o.ChunkServe(); got != tc.want {
			t.Errorf("%+v: ChunkServe %v, want %v", tc.o, got, tc.want)
		}
	}
}

// TestChunkMigrateFor checks the chunk move's cost and the counter's
// serving time against the interval since the worker's last fetch: the
// short end's line through the origin below its reach, the serving time
// shortened in the same proportion against the whole move, and the whole move from the reach on or
// where the short end is missing or not under the move.
func TestChunkMigrateFor(t *testing.T) {
	o := Overheads{ChunkMigrateNs: 150, ChunkServeNs: 80, ChunkMigrateShortNs: 75, ChunkShortTaskNs: 25}
	tests := []struct {
		name           string
		o              Overheads
		interval       float64
		mig, serve, at float64 // at: ChunkShortEndNs
	}{
		{"at the short end", o, 25, 75, 40, 50},
		{"under it", o, 10, 30, 16, 50},
		{"between it and the reach", o, 40, 120, 64, 50},
		{"at the reach", o, 50, 150, 80, 50},
		{"long tasks", o, 1e6, 150, 80, 50},
		{"no interval", o, 0, 0, 0, 50},
		{"a negative interval", o, -5, 0, 0, 50},
		{"no short end", Overheads{ChunkMigrateNs: 150, ChunkServeNs: 80}, 10, 150, 80, 0},
		{"no task length", Overheads{ChunkMigrateNs: 150, ChunkServeNs: 80, ChunkMigrateShortNs: 75}, 10, 150, 80, 0},
		{"short end not under the move", Overheads{ChunkMigrateNs: 150, ChunkServeNs: 80, ChunkMigrateShortNs: 160, ChunkShortTaskNs: 25}, 10, 150, 80, 0},
		{"no serving time: the move's", Overheads{ChunkMigrateNs: 150, ChunkMigrateShortNs: 75, ChunkShortTaskNs: 25}, 10, 30, 30, 50},
	}
	for _, tc := range tests {
		mig, serve := tc.o.ChunkMigrateFor(tc.interval)
		if math.Abs(mig-tc.mig) > 1e-9 || math.Abs(serve-tc.serve) > 1e-9 {
			t.Errorf("%s: ChunkMigrateFor(%v) = %v, %v; want %v, %v", tc.name, tc.interval, mig, serve, tc.mig, tc.serve)
		}
		if at := tc.o.ChunkShortEndNs(); at != tc.at {
			t.Errorf("%s: ChunkShortEndNs %v, want %v", tc.name, at, tc.at)
		}
	}
}
