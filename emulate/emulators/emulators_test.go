package emulators

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"ff", []string{"ff"}, ""},
		{" syn , ff ", []string{"syn", "ff"}, ""},
		{"ff,,ff", []string{"ff"}, ""},
		{"magic", nil, `unknown emulator "magic" (want ff, syn)`},
		{" , ", nil, "no emulator given"},
	}
	for _, tc := range tests {
		emus, err := Parse(tc.in, Options{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		var got []string
		for _, e := range emus {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestNames checks that every listed name makes the emulator of that
// name.
func TestNames(t *testing.T) {
	all := All(Options{})
	for i, n := range Names() {
		e, err := New(n, Options{Replays: 1})
		if err != nil || e.Name() != n || all[i].Name() != n {
			t.Errorf("New(%q) = %v, %v; All()[%d] = %v", n, e, err, i, all[i].Name())
		}
	}
}
