package emulate

import (
	"math"
	"testing"
)

func TestFactor(t *testing.T) {
	// 10 ns of serial code and a section of 80 ns of work that takes
	// 50 ns at 2 threads (busy 90 with 10 of inflation, idle 10) and
	// 92 ns at one thread.
	t1 := Result{Threads: 1, SerialNs: 90, ParallelNs: 102}
	res := Result{Threads: 2, SerialNs: 90, ParallelNs: 60,
		Sections: []Section{{ParallelNs: 50, BusyNs: 90, IdleNs: 10}}}
	f, err := Factor(res, t1)
	if err != nil {
		t.Fatal(err)
	}
	want := Factored{P: 2, Ts: 90, T1: 102, TP: 60, IP: 20, FP: 120 - 20 - 102,
		Linear: 2, Maximal: 180.0 / 102, IdleSpecific: 180.0 / 122, InflationSpecific: 180.0 / 100, Actual: 1.5}
	if math.Abs(f.FP-want.FP) > 1e-9 || f.IP != want.IP || math.Abs(f.IdleSpecific-want.IdleSpecific) > 1e-9 ||
		math.Abs(f.InflationSpecific-want.InflationSpecific) > 1e-9 || f.Actual != want.Actual || math.Abs(f.Maximal-want.Maximal) > 1e-9 {
		t.Errorf("Factor = %+v\nwant %+v", f, want)
	}
	// Fact 2.4: T_P = (T1 + I_P + F_P) / P.
	if got := (f.T1 + f.IP + f.FP) / float64(f.P); math.Abs(got-f.TP) > 1e-9 {
		t.Errorf("(T1+IP+FP)/P = %v, want TP %v", got, f.TP)
	}
	for _, bad := range []struct{ res, t1 Result }{
		{res, Result{Threads: 2, ParallelNs: 1}},
		{Result{Threads: 2}, t1},
	} {
		if _, err := Factor(bad.res, bad.t1); err == nil {
			t.Errorf("Factor(%+v, %+v) gave no error", bad.res, bad.t1)
		}
	}
}
