package sysinfo

import "testing"

func TestParseCPUMax(t *testing.T) {
	tests := []struct {
		in    string
		cores float64
		ok    bool
	}{
		{"max 100000\n", 0, false},
		{"150000 100000\n", 1.5, true},
		{"50000 100000", 0.5, true},
		{"garbage", 0, false},
		{"-1 100000", 0, false},
	}
	for _, tc := range tests {
		c, ok := parseCPUMax(tc.in)
		if c != tc.cores || ok != tc.ok {
			t.Errorf("parseCPUMax(%q) = %g, %v; want %g, %v", tc.in, c, ok, tc.cores, tc.ok)
		}
	}
}

// TestRunnable checks that a CPU quota of fewer whole cores than the
// CPUs limits the threads that run at once, to at least one, and says
// so.
func TestRunnable(t *testing.T) {
	quota := func(q float64, ok bool) func() (float64, bool) { return func() (float64, bool) { return q, ok } }
	tests := []struct {
		name  string
		cpus  int
		quota func() (float64, bool)
		n     int
		why   bool
	}{
		{"no quota", 16, quota(0, false), 16, false},
		{"quota above the CPUs", 2, quota(4, true), 2, false},
		{"quota of 2.5 cores", 16, quota(2.5, true), 2, true},
		{"quota under a core", 16, quota(0.5, true), 1, true},
		{"quota equal", 4, quota(4, true), 4, false},
	}
	for _, tc := range tests {
		n, why := runnable(tc.cpus, tc.quota)
		if n != tc.n || (why != "") != tc.why {
			t.Errorf("%s: %d, %q; want %d, a reason %v", tc.name, n, why, tc.n, tc.why)
		}
	}
}
