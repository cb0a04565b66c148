package hostload

import (
	"context"
	"math"
	"testing"
	"time"
)

const statText = `cpu  300 0 100 1000 10 0 5 5 0 0
cpu0 100 0 50 500 5 0 2 3 0 0
cpu1 200 0 50 500 5 0 3 2 0 0
cpu2 7 0 0 9
intr 176547 0 0
ctxt 326153
`

func TestParseStat(t *testing.T) {
	per := parseStat(statText)
	if len(per) != 2 {
		t.Fatalf("parsed %d CPUs, want 2 (the aggregate line and a short line left out): %v", len(per), per)
	}
	// busy = user + nice + system + irq + softirq + steal; total adds
	// idle and iowait.
	if c := per[0]; c.busy != 155 || c.total != 660 {
		t.Errorf("cpu0 = %+v, want busy 155, total 660", c)
	}
	if c := per[1]; c.busy != 255 || c.total != 760 {
		t.Errorf("cpu1 = %+v, want busy 255, total 760", c)
	}
	tests := []struct {
		name      string
		cpus      []int
		busy, tot uint64
		n         int
		ok        bool
	}{
		{"every CPU", nil, 410, 1420, 2, true},
		{"one CPU", []int{1}, 255, 760, 1, true},
		{"a CPU not listed", []int{1, 7}, 255, 760, 1, true},
		{"none listed", []int{7}, 0, 0, 0, false},
	}
	for _, tc := range tests {
		s, ok := sumCPUs(per, tc.cpus)
		if ok != tc.ok || s.busy != tc.busy || s.total != tc.tot || s.cpus != tc.n {
			t.Errorf("%s: sumCPUs = %+v, %v; want busy %d, total %d, %d CPUs, %v", tc.name, s, ok, tc.busy, tc.tot, tc.n, tc.ok)
		}
	}
}

func TestOthersCores(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name   string
		s0, s1 sample
		ownNs  int64
		wall   time.Duration
		want   float64
		ok     bool
	}{
		// Two CPUs, 200 ticks: 150 busy is 1.5 cores; this process
		// ran 1 s of CPU in 1 s: others 0.5.
		{"others half a core", sample{0, 0, 2}, sample{150, 200, 2}, 1e9, sec, 0.5, true},
		{"all ours", sample{0, 0, 2}, sample{200, 200, 2}, 2e9, sec, 0, true},
		// Tick sampling can put our own time above the ticks: never
		// below zero.
		{"ours above the ticks", sample{0, 0, 2}, sample{100, 200, 2}, 11e8, sec, 0, true},
		{"no ticks passed", sample{5, 10, 2}, sample{5, 10, 2}, 0, sec, 0, false},
		{"counters went back", sample{50, 10, 2}, sample{5, 20, 2}, 0, sec, 0, false},
	}
	for _, tc := range tests {
		got, ok := othersCores(tc.s0, tc.s1, tc.ownNs, tc.wall)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: othersCores = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMeterMeasuresAnInterval(t *testing.T) {
	m := Start()
	time.Sleep(20 * time.Millisecond)
	u := m.Stop()
	if u.Wall < 20*time.Millisecond {
		t.Errorf("wall %v, want at least the 20 ms slept", u.Wall)
	}
	if u.OK && (u.OthersCores < 0 || u.OthersCores > float64(u.Cores)+1e-9) {
		t.Errorf("others kept %v of %d cores busy: out of range", u.OthersCores, u.Cores)
	}
}

func TestWaitQuietReturns(t *testing.T) {
	// A cancelled context ends the wait at once, whatever the machine's
	// load; a generous one may succeed or not but must end.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	WaitQuiet(ctx, 1, time.Hour)
	WaitQuiet(context.Background(), 1, 20*time.Millisecond)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("WaitQuiet took %v", d)
	}
}

func TestWaitIdleReturns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if WaitIdle(ctx, time.Hour) {
		t.Error("WaitIdle with a cancelled context reported idle cores")
	}
	start := time.Now()
	WaitIdle(context.Background(), 10*time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("WaitIdle(10 ms) took %v", d)
	}
}
