package memmodel

import (
	"fmt"
	"math"
	"sort"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// MinMPI is the paper's threshold (assumption 5): below this many
// last-level-cache misses per instruction the burden factor is 1.
const MinMPI = 0.001

// DefaultLineSize is the cache line size assumed when a profile gives none.
const DefaultLineSize = 64

// PaperMachine returns the memory fits the paper published for its
// 12-core Westmere machine (equations 6 and 7, valid for δ ≥ 2000 MB/s).
//
// The paper does not state the clock frequency of that machine; FreqGHz is
// set to 2.93, the nominal frequency of the Xeon X5670 (Westmere-EP,
// 6 cores per socket, two sockets make 12 cores), an assumption only used
// when counters lack cycles or time. The paper gives no R² values; they
// are left 0.
func PaperMachine() machine.Memory {
	return machine.Memory{
		Psi: map[int]machine.Fit{
			2:  {Form: "linear", A: 1.35, B: 1758, MinX: 2000},
			4:  {Form: "log", A: 5756, B: -38805, MinX: 2000},
			8:  {Form: "log", A: 6143, B: -39657, MinX: 2000},
			12: {Form: "log", A: 6314, B: -39621, MinX: 2000},
		},
		Phi:           machine.Fit{Form: "power", A: 101481, B: -0.964, MinX: 2000},
		FreqGHz:       2.93,
		MinTrafficMBs: 2000,
	}
}

// Eval evaluates a fitted curve at x: A·x + B ("linear"), A·ln x + B
// ("log") or A·x^B ("power"). It fails for an unknown form and for x ≤ 0
// with the log and power forms.
func Eval(f machine.Fit, x float64) (float64, error) {
	switch f.Form {
	case "linear":
		return f.A*x + f.B, nil
	case "log":
		if x <= 0 {
			return 0, fmt.Errorf("log fit at %g: not positive", x)
		}
		return f.A*math.Log(x) + f.B, nil
	case "power":
		if x <= 0 {
			return 0, fmt.Errorf("power fit at %g: not positive", x)
		}
		return f.A * math.Pow(x, f.B), nil
	default:
		return 0, fmt.Errorf("unknown fit form %q (want linear, log or power)", f.Form)
	}
}

// Detail is every intermediate quantity of one burden-factor computation,
// for display (`prophet tree`) and tests.
type Detail struct {
	Threads int `json:"threads"`
	// N, T and D are the instructions, cycles and last-level-cache
	// misses used; TimeNs the wall time.
	N      float64 `json:"n"`
	T      float64 `json:"t"`
	D      float64 `json:"d"`
	TimeNs float64 `json:"time_ns"`
	// MPI is D/N; Delta the single-thread traffic δ in MB/s; DeltaT the
	// per-thread traffic δ^t predicted for t threads.
	MPI    float64 `json:"mpi"`
	Delta  float64 `json:"delta_mbs"`
	DeltaT float64 `json:"delta_t_mbs"`
	// Omega and OmegaT are the stall cycles per DRAM access alone and
	// with t threads; CPICache is CPI$ of equation (1).
	Omega    float64 `json:"omega"`
	OmegaT   float64 `json:"omega_t"`
	CPICache float64 `json:"cpi_cache"`
	// Beta is the burden factor β_t (at least 1).
	Beta float64 `json:"beta"`
	// Why is empty when β_t came from the equations; otherwise it says
	// why β_t is 1 (a threshold, missing data, a nonsensical fit).
	Why string `json:"why,omitempty"`
}

// Burden returns the burden factor β_t of a section with counters c on a
// machine with memory fits m and last-level cache line size lineSize
// (bytes; 0 means 64), for threads threads. why is empty when the
// equations gave β_t, and otherwise says why β_t is 1.
func Burden(c tree.Counters, m machine.Memory, lineSize int, threads int) (beta float64, why string) {
	d := Compute(c, m, lineSize, threads)
	return d.Beta, d.Why
}

// Compute is Burden with every intermediate quantity.
func Compute(c tree.Counters, m machine.Memory, lineSize int, threads int) Detail {
	return compute(c, m, psiThreads(m), lineSize, threads)
}

// psiThreads returns the thread counts above 1 that m has Ψ fits for,
// sorted.
func psiThreads(m machine.Memory) []int {
	ts := make([]int, 0, len(m.Psi))
	for t := range m.Psi {
		if t > 1 {
			ts = append(ts, t)
		}
	}
	sort.Ints(ts)
	return ts
}

func compute(c tree.Counters, m machine.Memory, ts []int, lineSize int, threads int) Detail {
	if lineSize <= 0 {
		lineSize = DefaultLineSize
	}
	d := Detail{Threads: threads, Beta: 1,
		N: float64(c.Instructions), T: float64(c.Cycles), D: float64(c.LLCMisses), TimeNs: float64(c.TimeNs)}
	one := func(why string) Detail { d.Beta = 1; d.Why = why; return d }

	if d.N <= 0 {
		return one("no instruction count")
	}
	if d.T <= 0 && d.TimeNs > 0 && m.FreqGHz > 0 {
		d.T = d.TimeNs * m.FreqGHz
	}
	if d.TimeNs <= 0 && d.T > 0 && m.FreqGHz > 0 {
		d.TimeNs = d.T / m.FreqGHz
	}
	if d.T <= 0 || d.TimeNs <= 0 {
		return one("no cycle count or time (and no clock frequency to convert)")
	}
	d.MPI = d.D / d.N
	d.Delta = d.D * float64(lineSize) * 1e3 / d.TimeNs // bytes/ns × 1e9/1e6 = MB/s
	if threads <= 1 {
		return one("one thread")
	}
	if d.MPI < MinMPI {
		return one(fmt.Sprintf("MPI %.2g below %g", d.MPI, MinMPI))
	}
	if d.Delta < m.MinTrafficMBs {
		return one(fmt.Sprintf("traffic %.0f MB/s below the calibrated range (%.0f MB/s)", d.Delta, m.MinTrafficMBs))
	}
	perThread, why := perThreadTraffic(m, ts, d.Delta, threads)
	if why != "" {
		return one(why)
	}
	d.DeltaT = perThread
	var err error
	if d.Omega, err = Eval(m.Phi, d.Delta); err != nil {
		return one("Φ: " + err.Error())
	}
	if d.OmegaT, err = Eval(m.Phi, d.DeltaT); err != nil {
		return one("Φ: " + err.Error())
	}
	if !(d.Omega > 0) || math.IsInf(d.Omega, 0) || math.IsNaN(d.OmegaT) || math.IsInf(d.OmegaT, 0) {
		return one(fmt.Sprintf("Φ gives no stall cost at %.0f MB/s", d.Delta))
	}
	// Equation (1); when the fitted stalls alone exceed the measured
	// cycles, all time is memory time: CPI$ = 0.
	d.CPICache = math.Max(0, (d.T-d.Omega*d.D)/d.N)
	// Equation (3).
	den := d.CPICache + d.MPI*d.Omega
	d.Beta = (d.CPICache + d.MPI*d.OmegaT) / den
	if !(d.Beta >= 1) { // also catches NaN
		d.Beta = 1
		d.Why = "the fits predict no extra contention"
	}
	return d
}

// PerThreadTraffic returns δ^t, the traffic (MB/s) of each of t threads
// running together when one alone makes delta MB/s: Ψ_t(δ)/t, with the
// interpolation between calibrated thread counts described in the
// package documentation. why is non-empty when there is no answer (no
// fits, δ below a fit's range, a fit giving no traffic).
func PerThreadTraffic(m machine.Memory, delta float64, threads int) (perThread float64, why string) {
	return perThreadTraffic(m, psiThreads(m), delta, threads)
}

// perThreadTraffic is PerThreadTraffic with the sorted thread counts of
// m's Ψ fits (psiThreads) given.
func perThreadTraffic(m machine.Memory, ts []int, delta float64, threads int) (perThread float64, why string) {
	if threads <= 1 {
		return delta, ""
	}
	if len(m.Psi) == 0 {
		return 0, "the machine profile has no Ψ fits"
	}
	if len(ts) == 0 {
		return 0, "the machine profile has no Ψ fits for 2 or more threads"
	}
	total := func(t int) (float64, string) {
		if t <= 1 {
			return delta, ""
		}
		f := m.Psi[t]
		if delta < f.MinX {
			return 0, fmt.Sprintf("traffic %.0f MB/s below the range of Ψ_%d (%.0f MB/s)", delta, t, f.MinX)
		}
		v, err := Eval(f, delta)
		if err != nil {
			return 0, fmt.Sprintf("Ψ_%d: %v", t, err)
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Sprintf("Ψ_%d gives no traffic at %.0f MB/s", t, delta)
		}
		return v, ""
	}
	// Above the largest calibrated count: that count's per-thread traffic.
	if tmax := ts[len(ts)-1]; threads >= tmax {
		v, why := total(tmax)
		return v / float64(tmax), why
	}
	lo, hi := 1, ts[0]
	for _, t := range ts {
		if t <= threads {
			lo = t
		}
		if t >= threads {
			hi = t
			break
		}
	}
	vlo, why := total(lo)
	if why != "" {
		return 0, why
	}
	if hi == lo {
		return vlo / float64(threads), ""
	}
	vhi, why := total(hi)
	if why != "" {
		return 0, why
	}
	v := vlo + (vhi-vlo)*float64(threads-lo)/float64(hi-lo)
	return v / float64(threads), ""
}
