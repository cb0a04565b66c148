package annotate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/internal/spin"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// TestRepeatFromEnv runs three "processes" of one program that record
// with EnvRepeat naming one pool: each Stop writes the pool back with its
// recording counted, the profile of each is written, and a program that
// does something else is pooled no further (a mismatch), while a pool
// file that is not one is an error reported by Stop.
func TestRepeatFromEnv(t *testing.T) {
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool")
	program := func(tasks int) {
		SecBegin("loop")
		for i := 0; i < tasks; i++ {
			Task("t", func() { spin.For(2000) })
		}
		SecEnd(false)
	}
	run := func(i, tasks int, poolPath string) error {
		t.Helper()
		profile := filepath.Join(dir, "p"+string(rune('0'+i))+".ppt")
		if err := startFromEnv(func(k string) string {
			switch k {
			case EnvVar:
				return profile
			case EnvRepeat:
				return poolPath
			}
			return ""
		}); err != nil {
			Stop()
			return err
		}
		program(tasks)
		if err := Stop(); err != nil {
			return err
		}
		if _, err := tree.ReadFile(profile); err != nil {
			t.Errorf("recording %d: %v", i, err)
		}
		return nil
	}
	readPool := func() *profiler.Repeat {
		t.Helper()
		f, err := os.Open(pool)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rp, err := profiler.ReadRepeat(f)
		if err != nil {
			t.Fatal(err)
		}
		return rp
	}
	for i := 1; i <= 2; i++ {
		if err := run(i, 50, pool); err != nil {
			t.Fatalf("recording %d: %v", i, err)
		}
		if rp := readPool(); rp.Runs() != i || rp.Mismatch() != "" {
			t.Errorf("after recording %d: pool of %d recordings, mismatch %q", i, rp.Runs(), rp.Mismatch())
		}
	}
	if err := run(3, 40, pool); err != nil {
		t.Fatalf("recording 3: %v", err)
	}
	if rp := readPool(); rp.Runs() != 3 || rp.Mismatch() == "" {
		t.Errorf("a recording of other work: pool of %d recordings, mismatch %q; want 3 and a mismatch", rp.Runs(), rp.Mismatch())
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not a pool"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(4, 50, bad); err == nil || !strings.Contains(err.Error(), EnvRepeat) {
		t.Errorf("a pool file that is not one: %v, want an error naming %s", err, EnvRepeat)
	}
}
