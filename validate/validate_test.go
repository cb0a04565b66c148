package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/internal/cputime"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// TestSmoke runs the whole harness on tiny samples: it asserts that it
// works end to end and that the report is consistent, never how accurate
// the predictions are.
func TestSmoke(t *testing.T) {
	threads := min(2, runtime.NumCPU())
	cfg := Config{
		Samples:   2,
		Threads:   []int{threads, 64},
		Schedules: []par.Schedule{{Policy: par.Static}, {Policy: par.Dynamic, Chunk: 1}},
		Seed:      42,
		Repeats:   1,
		Scale:     0.01,
		QuietWait: 5 * time.Millisecond,
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// 2 tests × 2 samples × 2 schedules × 1 thread count × 2 emulators.
	if got, want := len(rep.Rows), 2*2*2*2; got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		seen[r.Test+"/"+r.Emulator] = true
		if r.Threads != threads {
			t.Errorf("row at %d threads, want only %d (64 is more than this machine has)", r.Threads, threads)
		}
		for name, v := range map[string]float64{"predicted": r.Predicted, "real": r.Real, "error": r.Error} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("row %+v: %s = %g", r, name, v)
			}
		}
		if r.Predicted <= 0 || r.Real <= 0 {
			t.Errorf("row %+v: non-positive speedup", r)
		}
		if r.Rounds != 1 {
			// One round cannot tell an unsettled median: no more.
			t.Errorf("row %+v: %d rounds, want 1", r, r.Rounds)
		}
		if d := r.Error - math.Abs(r.Predicted-r.Real)/r.Real; math.Abs(d) > 1e-12 {
			t.Errorf("row %+v: error does not match |predicted − real| / real", r)
		}
		if _, ok := cputime.Process(); ok && !(r.CPUInflation > 0) {
			t.Errorf("row %+v: no CPU inflation, though this system has a CPU-time clock", r)
		}
		if (r.Emulator == "ff") != (r.PredictedCPU > 0) {
			t.Errorf("row %+v: predicted CPU inflation %g (ff counts its threads' busy time, syn does not)", r, r.PredictedCPU)
		}
	}
	for _, k := range []string{"test1/ff", "test1/syn", "test2/ff", "test2/syn"} {
		if !seen[k] {
			t.Errorf("no %s rows", k)
		}
	}
	if len(rep.Notes) == 0 || !strings.Contains(strings.Join(rep.Notes, " "), "64") {
		t.Errorf("notes %q do not mention the skipped thread count", rep.Notes)
	}
	checkSummary(t, rep)

	var tab, js, svg bytes.Buffer
	if err := rep.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "avg error") || !strings.Contains(tab.String(), "dynamic:1") {
		t.Errorf("table lacks its header or a schedule:\n%s", tab.String())
	}
	var rows bytes.Buffer
	if err := rep.WriteRows(&rows); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(rows.String(), "\n"), len(rep.Rows)+1; got != want || !strings.Contains(rows.String(), "cpu inflation") || !strings.Contains(rows.String(), "predicted cpu") || !strings.Contains(rows.String(), "rounds") {
		t.Errorf("rows table has %d lines (want %d) or lacks the cpu inflation, predicted cpu or rounds column:\n%s", got, want, rows.String())
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows    []map[string]any `json:"rows"`
		Summary []map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON does not read back: %v", err)
	}
	if len(back.Rows) != len(rep.Rows) || len(back.Summary) != len(rep.Summary) {
		t.Errorf("JSON has %d rows and %d summary rows, want %d and %d", len(back.Rows), len(back.Summary), len(rep.Rows), len(rep.Summary))
	}
	for _, k := range []string{"test", "emulator", "schedule", "threads", "samples", "avg_error", "max_error"} {
		if _, ok := back.Summary[0][k]; !ok {
			t.Errorf("JSON summary row lacks %q", k)
		}
	}
	for _, k := range []string{"test", "sample", "seed", "emulator", "schedule", "threads", "predicted", "real", "error"} {
		if _, ok := back.Rows[0][k]; !ok {
			t.Errorf("JSON row lacks %q", k)
		}
	}
	if err := rep.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if s := svg.String(); !strings.Contains(s, "<svg") || !strings.Contains(s, "real speedup") {
		t.Errorf("SVG output is not a labelled plot (%d bytes)", len(s))
	}
}

// checkSummary checks that the summary agrees with the rows.
func checkSummary(t *testing.T, rep *Report) {
	t.Helper()
	total := 0
	for _, s := range rep.Summary {
		var n int
		var sum, mx float64
		for _, r := range rep.Rows {
			sched := r.Schedule
			if r.Test == Examples {
				sched = OwnSchedule
			}
			if r.Test == s.Test && r.Emulator == s.Emulator && sched == s.Schedule && r.Threads == s.Threads {
				n++
				sum += r.Error
				mx = math.Max(mx, r.Error)
			}
		}
		if n != s.Samples || math.Abs(sum/float64(n)-s.AvgError) > 1e-12 || mx != s.MaxError || s.AvgError > s.MaxError {
			t.Errorf("summary %+v disagrees with its %d rows (avg %g, max %g)", s, n, sum/float64(n), mx)
		}
		total += s.Samples
	}
	if total != len(rep.Rows) {
		t.Errorf("summary covers %d rows of %d", total, len(rep.Rows))
	}
}

func TestSmokeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every kernel")
	}
	rep, err := Run(context.Background(), Config{Examples: true, Kernels: []string{"ep", "mandelbrot"}, Threads: []int{min(2, runtime.NumCPU())}, Repeats: 1, Scale: 0.05, Emulators: []string{"ff"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (one per kernel)", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.Test != Examples || (r.Sample != "ep" && r.Sample != "mandelbrot") || !(r.Real > 0) || !(r.Predicted > 0) {
			t.Errorf("bad row %+v", r)
		}
	}
	if len(rep.Summary) != 1 || rep.Summary[0].Schedule != OwnSchedule || rep.Summary[0].Samples != 2 {
		t.Errorf("summary %+v, want one row over both kernels", rep.Summary)
	}
	checkSummary(t, rep)
}

func TestRunBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"unknown test", Config{Test: "test9"}},
		{"negative samples", Config{Samples: -1}},
		{"zero threads", Config{Threads: []int{0}}},
		{"only too many threads", Config{Threads: []int{runtime.NumCPU() + 1}}},
		{"unknown emulator", Config{Emulators: []string{"oracle"}}},
		{"negative repeats", Config{Repeats: -2}},
		{"negative max repeats", Config{MaxRepeats: -1}},
		{"bad scale", Config{Scale: -1}},
		{"unknown kernel", Config{Examples: true, Kernels: []string{"nosuch"}}},
	} {
		if _, err := Run(context.Background(), tc.cfg); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestKeep checks that Config.Keep receives each sample's recording, the
// one its rows were predicted from (its work is the rows' RecordedNs),
// and that a Keep that cannot be a directory fails the run, naming it.
func TestKeep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kept")
	rep, err := Run(context.Background(), Config{Test: Fine, Samples: 2, Threads: []int{1}, Schedules: []par.Schedule{{Policy: par.Static}},
		Emulators: []string{"ff"}, Repeats: 1, Scale: 0.01, Keep: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		path := filepath.Join(dir, Fine+"-"+r.Sample+".ppt")
		tr, err := tree.ReadFile(path)
		if err != nil {
			t.Fatalf("sample %s: %v", r.Sample, err)
		}
		if w := float64(tree.Work(tr.Root)); w != r.RecordedNs {
			t.Errorf("sample %s: kept recording of %v ns of work, the row's %v", r.Sample, w, r.RecordedNs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, Fine+"-"+rep.Rows[0].Sample+".machine.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a machine profile kept without LinesNow: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Config{Test: Fine, Samples: 1, Threads: []int{1}, Scale: 0.01, Keep: filepath.Join(file, "kept")})
	if err == nil || !strings.Contains(err.Error(), "keeping the recordings") {
		t.Errorf("Keep under a file: %v, want an error about keeping the recordings", err)
	}
}

// TestKeepLineCosts checks that with LinesNow Config.Keep also receives,
// beside each sample's recording, the machine profile its ff rows were
// charged: the configured one with the line costs measured beside the
// sample's runs, which machine.Load reads back.
func TestKeepLineCosts(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the line costs need two cores")
	}
	dir := t.TempDir()
	prof := machine.Default()
	prof.Overheads.ChunkMigrateNs = -1 // measured anew: no longer -1
	rep, err := Run(context.Background(), Config{Test: Fine, Samples: 1, Threads: []int{2}, Schedules: []par.Schedule{{Policy: par.Dynamic, Chunk: 1}},
		Emulators: []string{"ff"}, Repeats: 1, Scale: 0.01, Keep: dir, LinesNow: true, Machine: prof})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := machine.Load(filepath.Join(dir, Fine+"-"+rep.Rows[0].Sample+".machine.json"))
	if err != nil {
		t.Fatal(err)
	}
	if kept.Overheads.ChunkMigrateNs < 0 || kept.Overheads.ForkNs != prof.Overheads.ForkNs || kept.Overheads.LockHandoffNs != prof.Overheads.LockHandoffNs {
		t.Errorf("kept overheads %+v: want the line costs measured (chunk move %v), the rest the profile's", kept.Overheads, kept.Overheads.ChunkMigrateNs)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Samples: 1, Scale: 0.01, Threads: []int{1}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestSummarize(t *testing.T) {
	rows := []Row{
		{Test: Test1, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.1},
		{Test: Test1, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.3},
		{Test: Test1, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.5, ShortLock: true},
		{Test: Test1, Emulator: "syn", Schedule: "static", Threads: 2, Error: 0.05},
		{Test: Test1, Emulator: "ff", Schedule: "static", Threads: 4, Error: 0.2, ShortLock: true},
		{Test: Examples, Emulator: "ff", Schedule: "static", Threads: 2, Error: 0.02},
		{Test: Examples, Emulator: "ff", Schedule: "dynamic:1", Threads: 2, Error: 0.04},
	}
	want := []Summary{
		{Test: Test1, Emulator: "ff", Schedule: "static", Threads: 2, Samples: 3, AvgError: 0.3, MaxError: 0.5, ShortLocks: 1, AvgErrorRest: 0.2, MaxErrorRest: 0.3},
		{Test: Test1, Emulator: "syn", Schedule: "static", Threads: 2, Samples: 1, AvgError: 0.05, MaxError: 0.05, AvgErrorRest: 0.05, MaxErrorRest: 0.05},
		// Every sample with a short lock: no rest.
		{Test: Test1, Emulator: "ff", Schedule: "static", Threads: 4, Samples: 1, AvgError: 0.2, MaxError: 0.2, ShortLocks: 1},
		{Test: Examples, Emulator: "ff", Schedule: OwnSchedule, Threads: 2, Samples: 2, AvgError: 0.03, MaxError: 0.04, AvgErrorRest: 0.03, MaxErrorRest: 0.04},
	}
	got := Summarize(rows)
	for i := range got {
		got[i].AvgError = math.Round(got[i].AvgError*1e9) / 1e9
		got[i].AvgErrorRest = math.Round(got[i].AvgErrorRest*1e9) / 1e9
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Summarize:\n got %+v\nwant %+v", got, want)
	}
	if s := Summarize(nil); len(s) != 0 {
		t.Errorf("Summarize(nil) = %v", s)
	}
}

func TestSampleSeed(t *testing.T) {
	seen := map[uint64]string{}
	for _, test := range []string{Test1, Test2} {
		for i := 0; i < 1000; i++ {
			s := SampleSeed(1, test, i)
			if prev, ok := seen[s]; ok {
				t.Fatalf("%s sample %d has the same seed as %s", test, i, prev)
			}
			seen[s] = fmt.Sprintf("%s sample %d", test, i)
		}
	}
	if SampleSeed(1, Test1, 0) == SampleSeed(2, Test1, 0) {
		t.Error("the run seed does not change sample seeds")
	}
}

func TestRoundRange(t *testing.T) {
	tests := []struct {
		name      string
		ser, par  []float64
		low, high float64
	}{
		{"no rounds", nil, nil, 0, 0},
		{"one round", []float64{100}, []float64{50}, 2, 2},
		{"rounds paired, not medians", []float64{100, 120, 90}, []float64{50, 100, 60}, 1.2, 2},
	}
	for _, tc := range tests {
		low, high := roundRange(tc.ser, tc.par)
		if math.Abs(low-tc.low) > 1e-12 || math.Abs(high-tc.high) > 1e-12 {
			t.Errorf("%s: roundRange = %v, %v; want %v, %v", tc.name, low, high, tc.low, tc.high)
		}
	}
}

func TestCPURatio(t *testing.T) {
	tests := []struct {
		name     string
		par, ser []float64
		want     float64
	}{
		{"median of the rounds' ratios", []float64{120, 300, 110}, []float64{100, 100, 100}, 1.2},
		{"ratios, not ratio of medians", []float64{20, 30, 40}, []float64{10, 30, 20}, 2},
		{"a round without a clock", []float64{120, -1}, []float64{100, 100}, 0},
		{"a serial round of zero", []float64{120}, []float64{0}, 0},
		{"no rounds", nil, nil, 0},
	}
	for _, tc := range tests {
		if got := cpuRatio(tc.par, tc.ser); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: cpuRatio(%v, %v) = %v, want %v", tc.name, tc.par, tc.ser, got, tc.want)
		}
	}
}

func TestMaxRepeatsDefaults(t *testing.T) {
	tests := []struct {
		cfg  Config
		want int
	}{
		{Config{}, 15},
		{Config{Repeats: 3}, 9},
		{Config{Repeats: 5, MaxRepeats: 7}, 7},
		{Config{Repeats: 5, MaxRepeats: 2}, 5},
		{Config{Repeats: 5, Fastest: true}, 5},
	}
	for _, tc := range tests {
		c, err := tc.cfg.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxRepeats != tc.want {
			t.Errorf("Repeats %d, MaxRepeats %d, Fastest %v: MaxRepeats %d after defaults, want %d", tc.cfg.Repeats, tc.cfg.MaxRepeats, tc.cfg.Fastest, c.MaxRepeats, tc.want)
		}
	}
}

func TestSuperlinearNote(t *testing.T) {
	static := par.Schedule{Policy: par.Static}
	tests := []struct {
		sub        subject
		real, infl float64
		want       []string // all in the note; none: no note
		not        string
	}{
		{subject{test: Examples, sample: "fft"}, 2.3, 0.85, []string{"fft, static:", "2.30 on 2 threads", "did less work", "0.85 of the serial run's", "more than 2-fold"}, "other load"},
		{subject{test: Examples, sample: "ep"}, 2.36, 1.00, []string{"ep, static:", "no less work", "1.00 of the serial run's", "other load"}, "caches"},
		{subject{test: Test2, sample: "7"}, 2.1, 0, []string{"test2 sample 7, static:", "2.10 on 2 threads", "CPU time is unknown"}, "did less work"},
		{subject{test: Examples, sample: "mandelbrot"}, 2.01, 0.97, nil, ""}, // within noise of 2
	}
	for _, tc := range tests {
		got := superlinearNote(tc.sub, static, 2, tc.real, tc.infl)
		if len(tc.want) == 0 && got != "" {
			t.Errorf("superlinearNote(%s, %.2f) = %q, want no note", tc.sub.sample, tc.real, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("superlinearNote(%s) = %q, want it to contain %q", tc.sub.sample, got, w)
			}
		}
		if tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("superlinearNote(%s) = %q, should not say %q", tc.sub.sample, got, tc.not)
		}
	}
}

// TestLineNote checks when validation says that cache lines moved at
// another speed beside the real runs than in the machine profile.
func TestLineNote(t *testing.T) {
	rows := func(ns ...float64) []Row {
		var out []Row
		for _, x := range ns {
			out = append(out, Row{LineNs: x})
		}
		return out
	}
	for _, c := range []struct {
		name    string
		rows    []Row
		profile float64
		want    bool
	}{
		{"none measured", rows(0, 0), 13, false},
		{"same mode", rows(12, 14, 15), 13, false},
		{"slow beside the runs", rows(240, 245, 14), 13, true},
		{"fast beside the runs", rows(12, 14, 250), 243, true},
		{"three times but under 50 ns apart", rows(40, 41, 42), 12, false},
		{"50 ns apart but under three times", rows(150, 152), 90, false},
	} {
		for _, now := range []bool{false, true} {
			got := lineNote(c.rows, c.profile, now)
			if (got != "") != c.want {
				t.Errorf("%s (linesNow %v): lineNote = %q, want a note: %v", c.name, now, got, c.want)
			}
			if c.want && strings.Contains(got, "measured beside the runs") != now {
				t.Errorf("%s (linesNow %v): lineNote = %q does not say which costs ff charged", c.name, now, got)
			}
		}
	}
}

// TestRecordingNote checks which generated samples recordingNote counts
// as recorded off their plain serial runs, once per sample, and that it
// leaves the bundled kernels out.
func TestRecordingNote(t *testing.T) {
	row := func(test, sample string, recorded, serial float64) Row {
		return Row{Test: test, Sample: sample, RecordedNs: recorded, SerialNs: serial}
	}
	for _, c := range []struct {
		name string
		rows []Row
		want string // "" for no note, else its opening
	}{
		{"faithful", []Row{row("fine", "0", 105, 100), row("fine", "1", 92, 100)}, ""},
		{"one long", []Row{row("fine", "0", 120, 100), row("fine", "1", 100, 100)}, "1 of 2 samples was recorded at 1.20 times"},
		{"long and short", []Row{row("fine", "0", 150, 100), row("test1", "0", 80, 100), row("fine", "1", 100, 100)}, "2 of 3 samples were recorded at 0.80 to 1.50 times"},
		{"a sample's rows count once", []Row{row("fine", "0", 130, 100), row("fine", "0", 130, 100), row("fine", "1", 100, 100)}, "1 of 2 samples was"},
		{"kernels left out", []Row{row(Examples, "cg", 65, 100), row("fine", "1", 100, 100)}, ""},
		{"nothing measured", []Row{row("fine", "0", 0, 100)}, ""},
	} {
		got := recordingNote(c.rows)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: recordingNote = %q, want it to open with %q", c.name, got, c.want)
		}
	}
}
