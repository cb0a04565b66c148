package sysinfo

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{{"32768K", 32 << 20}, {"1M", 1 << 20}, {"2G", 2 << 30}, {"512", 512}, {"x", 0}, {"-1K", 0}}
	for _, tc := range tests {
		if got := parseSize(tc.in); got != tc.want {
			t.Errorf("parseSize(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestRead(t *testing.T) {
	s := Read()
	if s.Cores < 1 || s.LineSize < 1 || s.LLCBytes < 1 || !(s.FreqGHz > 0) || s.CPU == "" {
		t.Errorf("Read() = %+v", s)
	}
}
