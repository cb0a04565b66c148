package main

import (
	"strings"
	"testing"
)

func TestCPUNote(t *testing.T) {
	for _, tc := range []struct {
		infl, ff  float64
		short     bool
		want, not []string
	}{
		{1.29, 1.05, false, []string{"took 1.29× the serial run's CPU time", "ff's threads 1.05×", "the rest is idle cores", "How far to trust a prediction"}, []string{"that is", "short lock"}},
		{1.29, 0, false, []string{"took 1.29×", ": that is idle cores", "data that changes cores"}, []string{"ff's threads"}},
		{2.82, 2.52, true, []string{"ff's threads 2.52×", "the rest is threads spinning at its short lock", "idle cores"}, nil},
	} {
		got := cpuNote(tc.infl, tc.ff, tc.short)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("cpuNote(%g, %g) lacks %q:\n%s", tc.infl, tc.ff, w, got)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("cpuNote(%g, %g) has %q:\n%s", tc.infl, tc.ff, w, got)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if len([]rune(l)) > demoWidth || !strings.HasPrefix(l, "  ") {
				t.Errorf("cpuNote(%g, %g): a line of %d characters: %q", tc.infl, tc.ff, len([]rune(l)), l)
			}
		}
	}
	if got, want := wrapLines("aa bb cc", "> ", 7), "> aa bb\n> cc\n"; got != want {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
	if got, want := wrapLines("toolongword x", "", 4), "toolongword\nx\n"; got != want {
		t.Errorf("wrapLines = %q, want %q", got, want)
	}
}
