package main

import (
	"strings"
	"testing"
)

// TestVet runs prophet vet on a package with mistakes and on clean ones.
func TestVet(t *testing.T) {
	code, out, stderr := prophet("vet", "./testdata/vetbad")
	if code != 1 {
		t.Fatalf("vet on vetbad: exit %d, want 1\nstdout: %s\nstderr: %s", code, out, stderr)
	}
	for _, want := range []string{
		"testdata/vetbad/main.go:17:4: the function returns here with SecBegin() of line 13 open",
		"testdata/vetbad/main.go:9:2: package main imports annotate but never calls annotate.Stop",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("vet output lacks %q:\n%s", want, out)
		}
	}
	if code, out, stderr := prophet("vet", "./testdata/good", "./testdata/racefree"); code != 0 || out != "" {
		t.Errorf("vet on clean packages: exit %d, output %q, stderr %q", code, out, stderr)
	}
	if code, _, stderr := prophet("vet", "./testdata/nosuchpackage"); code != 2 || !strings.Contains(stderr, "errors loading") {
		t.Errorf("vet on a missing package: exit %d, stderr %q; want 2 and a loading error", code, stderr)
	}
}
