package profiler

import (
	"errors"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/tree"
)

// fakeCounters counts k*1000 instructions, k*2000 cycles and k*10 misses
// in its k-th run, and can fail on a chosen Begin.
type fakeCounters struct {
	begins, ends int
	pauses       int
	failBegin    int // 1-based Begin call that fails; 0: none
	closed       bool
	running      bool
}

func (f *fakeCounters) Begin() error {
	f.begins++
	if f.begins == f.failBegin {
		return errors.New("fake counter failure")
	}
	if f.running {
		return errors.New("Begin while running")
	}
	f.running = true
	return nil
}

func (f *fakeCounters) Pause() error {
	if !f.running {
		return errors.New("Pause while stopped")
	}
	f.running = false
	f.pauses++
	return nil
}

func (f *fakeCounters) Resume() error {
	if f.running {
		return errors.New("Resume while running")
	}
	f.running = true
	return nil
}

func (f *fakeCounters) End() (Sample, error) {
	if !f.running {
		return Sample{}, errors.New("End while stopped")
	}
	f.running = false
	f.ends++
	k := uint64(f.ends)
	return Sample{Instructions: 1000 * k, Cycles: 2000 * k, LLCMisses: 10 * k}, nil
}

func (f *fakeCounters) Close() error { f.closed = true; return nil }

// sections runs top-level sections "a" three times and "b" once, each
// with a nested section.
func sections(p *Profiler) {
	for _, name := range []string{"a", "a", "b", "a"} {
		p.SecBegin(name)
		p.TaskBegin("t")
		p.SecBegin("nested")
		p.TaskBegin("u")
		p.TaskEnd()
		p.SecEnd(false)
		p.TaskEnd()
		p.SecEnd(false)
	}
}

func TestCountersPlumbing(t *testing.T) {
	fake := &fakeCounters{}
	opt := quick()
	opt.NoCounters = false
	opt.Counters = func() (CounterSet, error) { return fake, nil }
	p, err := Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	sections(p)
	tr, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if fake.begins != 4 || fake.ends != 4 || !fake.closed {
		t.Errorf("Begin %d, End %d, closed %v; want 4, 4, true (top-level sections only)", fake.begins, fake.ends, fake.closed)
	}
	if tr.Meta.CountersNote != "" {
		t.Errorf("CountersNote = %q, want none", tr.Meta.CountersNote)
	}
	// Runs 1, 2 and 4 were "a": averages 7000/3 etc.; run 3 was "b".
	want := map[string]tree.Counters{
		"a": {Instructions: 7000 / 3, Cycles: 14000 / 3, LLCMisses: 70 / 3, Runs: 3},
		"b": {Instructions: 3000, Cycles: 6000, LLCMisses: 30, Runs: 1},
	}
	seen := 0
	for _, c := range tr.Root.Children {
		if c.Kind != tree.KindSec {
			continue
		}
		seen++
		w, ok := want[c.Name]
		if !ok {
			t.Fatalf("unexpected top-level section %q", c.Name)
		}
		if c.Counters == nil {
			t.Fatalf("section %q has no counters", c.Name)
		}
		got := *c.Counters
		if got.TimeNs < 0 {
			t.Errorf("section %q: negative TimeNs", c.Name)
		}
		got.TimeNs = 0
		if got != w {
			t.Errorf("section %q counters = %+v, want %+v", c.Name, got, w)
		}
		for n := range c.Expanded() {
			for m := range n.Expanded() {
				if m.Kind == tree.KindSec && m.Counters != nil {
					t.Errorf("nested section %q has counters", m.Name)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no top-level sections")
	}
}

func TestCountersPauseWhileBuilding(t *testing.T) {
	// A section longer than the event buffer: the counters pause while
	// the tree is built from it, and counting goes on afterwards.
	fake := &fakeCounters{}
	opt := quick()
	opt.NoCounters = false
	opt.Counters = func() (CounterSet, error) { return fake, nil }
	p, err := Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	p.SecBegin("big")
	for range 3 * bufLen {
		p.TaskBegin("t")
		p.TaskEnd()
	}
	p.SecEnd(false)
	tr, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if fake.pauses < 5 || fake.ends != 1 {
		t.Errorf("%d pauses and %d ends, want at least 5 and 1", fake.pauses, fake.ends)
	}
	if tr.Meta.CountersNote != "" {
		t.Errorf("counters failed: %s", tr.Meta.CountersNote)
	}
}

func TestCountersMissing(t *testing.T) {
	tests := []struct {
		name string
		open CounterOpener
		fail int
		want string
	}{
		{"open fails", func() (CounterSet, error) {
			return nil, errors.New("hardware counters unavailable: no PMU")
		}, 0, "hardware counters unavailable: no PMU"},
		{"fails mid-run", nil, 2, "hardware counters failed during recording"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeCounters{failBegin: tt.fail}
			opt := quick()
			opt.NoCounters = false
			opt.Counters = tt.open
			if opt.Counters == nil {
				opt.Counters = func() (CounterSet, error) { return fake, nil }
			}
			p, err := Start(opt)
			if err != nil {
				t.Fatal(err)
			}
			sections(p)
			tr, err := p.Stop()
			if err != nil {
				t.Fatalf("recording failed: %v", err)
			}
			if !strings.Contains(tr.Meta.CountersNote, tt.want) {
				t.Errorf("CountersNote = %q, want it to contain %q", tr.Meta.CountersNote, tt.want)
			}
			if tt.fail > 0 && fake.begins != tt.fail {
				t.Errorf("Begin called %d times, want %d (counting stops at the failure)", fake.begins, tt.fail)
			}
		})
	}
}

func TestHardwareCountersNote(t *testing.T) {
	// On a machine with counters this opens them; without, the error must
	// say why. Either way recording works.
	c, err := HardwareCounters()
	if err == nil {
		c.Close()
		t.Skip("this machine has hardware counters")
	}
	if !strings.HasPrefix(err.Error(), "hardware counters unavailable: ") {
		t.Errorf("error %q does not say counters are unavailable", err)
	}
	t.Logf("counters note: %v", err)
	p, err := Start(Options{RateSample: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	sections(p)
	tr, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta.CountersNote == "" {
		t.Error("no CountersNote although counters are missing")
	}
}
