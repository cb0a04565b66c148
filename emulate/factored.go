package emulate

import (
	"fmt"
)

// Factored is the factored-speedup decomposition of one prediction (the
// work-inflation paper, section 2): with P threads, P·T_P = W_P + I_P
// (work plus idle time) and the work inflation F_P = P·T_P − I_P − T_1.
// All times are in nanoseconds.
type Factored struct {
	P int `json:"threads"`
	// Ts is the serial time, T1 the predicted time of the parallel
	// program at one thread, TP at P threads.
	Ts float64 `json:"ts_ns"`
	T1 float64 `json:"t1_ns"`
	TP float64 `json:"tp_ns"`
	// IP is the total idle time of the P threads over the whole program:
	// the sections' idle time plus P−1 idle threads during the serial
	// code between sections.
	IP float64 `json:"idle_ns"`
	// FP is the work inflation P·T_P − I_P − T_1.
	FP float64 `json:"inflation_ns"`
	// The speedups: Linear = P, Maximal = P·Ts/T1, IdleSpecific =
	// P·Ts/(T1+I_P), InflationSpecific = P·Ts/(P·T_P−I_P), Actual =
	// Ts/T_P.
	Linear            float64 `json:"linear"`
	Maximal           float64 `json:"maximal"`
	IdleSpecific      float64 `json:"idle_specific"`
	InflationSpecific float64 `json:"inflation_specific"`
	Actual            float64 `json:"actual"`
}

// Factor decomposes res, a prediction at P threads whose sections carry
// BusyNs and IdleNs (as syn's do), given t1, the prediction of the same
// tree and schedule at one thread (whose ParallelNs is T_1).
func Factor(res, t1 Result) (Factored, error) {
	if t1.Threads != 1 {
		return Factored{}, fmt.Errorf("factored speedups: the baseline is at %d threads, want 1", t1.Threads)
	}
	if res.Threads < 1 || res.ParallelNs <= 0 || t1.ParallelNs <= 0 {
		return Factored{}, fmt.Errorf("factored speedups: no parallel time to factor")
	}
	p := float64(res.Threads)
	f := Factored{P: res.Threads, Ts: res.SerialNs, T1: t1.ParallelNs, TP: res.ParallelNs}
	secs := 0.0
	for _, s := range res.Sections {
		f.IP += s.IdleNs
		secs += s.ParallelNs
	}
	f.IP += (p - 1) * max(0, res.ParallelNs-secs)
	f.FP = p*f.TP - f.IP - f.T1
	f.Linear = p
	f.Maximal = p * f.Ts / f.T1
	f.IdleSpecific = p * f.Ts / (f.T1 + f.IP)
	if w := p*f.TP - f.IP; w > 0 {
		f.InflationSpecific = p * f.Ts / w
	}
	f.Actual = f.Ts / f.TP
	return f, nil
}
