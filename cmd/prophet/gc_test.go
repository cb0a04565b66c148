package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestRelaxedGC: predict relaxes the collector under a soft limit that
// starts at predictMemoryFloor and follows the live heap at
// predictLiveFactor times it, and puts both settings back after.
func TestRelaxedGC(t *testing.T) {
	// Unset (t.Setenv puts them back after): relaxGC leaves the
	// collector alone where either is set.
	for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv(k, "")
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(1 << 40)
	defer func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}()
	gc := relaxGC()
	if got := debug.SetMemoryLimit(-1); got != predictMemoryFloor {
		t.Errorf("soft limit %d, want %d", got, predictMemoryFloor)
	}
	// 40 MB live: the limit follows to predictLiveFactor times that.
	live := make([]byte, 40<<20)
	for i := range live {
		live[i] = byte(i)
	}
	runtime.GC()
	gc.follow()
	if got := debug.SetMemoryLimit(-1); got < predictLiveFactor*40<<20 {
		t.Errorf("soft limit %d with 40 MB live, want at least %d", got, predictLiveFactor*40<<20)
	}
	runtime.KeepAlive(live)
	gc.restore()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("soft limit %d after restore, want %d", got, int64(1<<40))
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent %d after restore, want 100", got)
	}
}
