package validate

import (
	"context"
	"runtime"
	"testing"
)

// TestSubjectsGenerateLazily checks that listing a test's samples does
// not generate them: a fine sample's iterations take up to tens of
// megabytes, and thirty of them generated up front stayed alive for the
// whole run.
func TestSubjectsGenerateLazily(t *testing.T) {
	cfg, err := Config{Test: Fine, Samples: 30}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	subs, err := cfg.subjects()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 30 {
		t.Fatalf("%d subjects, want 30", len(subs))
	}
	// Generated, the thirty samples take about 180 MB.
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("listing the samples allocated %d bytes: they were generated up front", got)
	}
	sub := subs[3]
	if sub.open == nil || sub.parallel != nil {
		t.Fatalf("sample 3 is ready before it is opened")
	}
	if err := sub.open(&sub); err != nil {
		t.Fatal(err)
	}
	p, err := Generate(Fine, SampleSeed(cfg.Seed, Fine, 3), cfg.Scale)
	if err != nil {
		t.Fatal(err)
	}
	if sub.desc != p.Desc || sub.seed != p.Seed || sub.sample != "3" || sub.parallel == nil || sub.plain == nil {
		t.Errorf("opened sample 3: %q, seed %d, sample %q; want %q, seed %d", sub.desc, sub.seed, sub.sample, p.Desc, p.Seed)
	}
	if _, err := (Config{Test: "nope", Samples: 1}).subjects(); err == nil {
		t.Error("an unknown test listed without an error")
	}
}

// TestEmulatorsPerSubject checks that each subject is measured with
// emulators of its own: an emulator caches what it derives from a tree
// under the tree's nodes, so one kept across subjects keeps every
// recording alive to the end of the run.
func TestEmulatorsPerSubject(t *testing.T) {
	_, m, err := begin(Config{Samples: 2, Test: Test1, Threads: []int{1}, Repeats: 1, Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	subs, err := m.cfg.subjects()
	if err != nil {
		t.Fatal(err)
	}
	var seen []any
	for _, sub := range subs {
		if _, err := m.measure(context.Background(), sub); err != nil {
			t.Fatal(err)
		}
		if len(m.emus) != 2 {
			t.Fatalf("%d emulators, want ff and syn", len(m.emus))
		}
		for _, e := range m.emus {
			for _, old := range seen {
				if old == any(e) {
					t.Fatalf("%s served two subjects", e.Name())
				}
			}
			seen = append(seen, e)
		}
	}
}
