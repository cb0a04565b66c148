package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestAnalyzePprof writes the triangle's regions as a pprof profile and
// reads it back: the critical path is the serial 1 ms plus the longest
// row (8 ms and its 0.1 ms lock).
func TestAnalyzePprof(t *testing.T) {
	prof := triangle(t)
	out := filepath.Join(t.TempDir(), "tri.pprof")
	code, _, stderr := prophet("analyze", prof, "--pprof", out, "--machine", "builtin")
	if code != 0 || !strings.Contains(stderr, "pprof profile written to "+out) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var work, span int64
	for _, s := range p.Sample {
		work, span = work+s.Value[0], span+s.Value[1]
	}
	if work != 1e6+36e6+8e5 || span != 1e6+8e6+1e5 || p.DefaultSampleType != "critical_path" {
		t.Errorf("work %d, critical path %d, default %q; want 37.8 ms, 9.1 ms, critical_path", work, span, p.DefaultSampleType)
	}
	// An output that is a directory is refused before any work.
	if code, _, stderr := prophet("analyze", prof, "--pprof", t.TempDir(), "--machine", "builtin"); code == 0 {
		t.Errorf("--pprof to a directory: exit 0, stderr %q", stderr)
	}
}
