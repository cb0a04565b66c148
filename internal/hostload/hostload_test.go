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
		name string
		u    Usage
		want float64
		ok   bool
	}{
		// Two CPUs, 200 ticks: 150 busy is 1.5 cores; this process
		// ran 1 s of CPU in 1 s: others 0.5.
		{"others half a core", Usage{Wall: sec, Cores: 2, busy: 150, total: 200, ownNs: 1e9, ok: true}, 0.5, true},
		{"all ours", Usage{Wall: sec, Cores: 2, busy: 200, total: 200, ownNs: 2e9, ok: true}, 0, true},
		// Tick sampling can put our own time above the ticks: never
		// below zero.
		{"ours above the ticks", Usage{Wall: sec, Cores: 2, busy: 100, total: 200, ownNs: 11e8, ok: true}, 0, true},
		{"too few ticks to tell", Usage{Wall: sec / 100, Cores: 2, busy: 2, total: 2, ok: true}, 0, false},
		{"not known", Usage{Wall: sec, Cores: 2, busy: 150, total: 200}, 0, false},
	}
	for _, tc := range tests {
		got, ok := tc.u.OthersCores()
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: OthersCores = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestUsageAdd(t *testing.T) {
	// Ten short rounds of 10 ticks each: none tells on its own, their
	// sum does.
	short := Usage{Wall: 50 * time.Millisecond, Cores: 2, busy: 8, total: 10, ownNs: 50e6, ok: true}
	if _, ok := short.OthersCores(); ok {
		t.Fatal("a 10-tick round told")
	}
	var sum Usage
	for range 10 {
		sum.Add(short)
	}
	got, ok := sum.OthersCores()
	if !ok || math.Abs(got-0.6) > 1e-12 {
		t.Errorf("sum of ten rounds: %v, %v; want 0.6 (1.6 busy cores less 1 of ours)", got, ok)
	}
	sum.Add(Usage{Wall: time.Millisecond, Cores: 2})
	if _, ok := sum.OthersCores(); ok {
		t.Error("a sum with an unknown round told")
	}
}

func TestMeterMeasuresAnInterval(t *testing.T) {
	m := Start()
	time.Sleep(20 * time.Millisecond)
	u := m.Stop()
	if u.Wall < 20*time.Millisecond {
		t.Errorf("wall %v, want at least the 20 ms slept", u.Wall)
	}
	if o, ok := u.OthersCores(); ok && (o < 0 || o > float64(u.Cores)+1e-9) {
		t.Errorf("others kept %v of %d cores busy: out of range", o, u.Cores)
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
