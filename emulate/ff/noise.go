package ff

import (
	"math"

	"github.com/parallel-prophet/prophet/machine"
	"gonum.org/v1/gonum/stat/distuv"
)

// resetNoise sets up the emulation of the machine's noise (see noisy)
// from ov, or none where ov has no noise measured. The run's first
// hiccup comes after the run's wake-up quantile of the mean hold time
// between two, and takes that quantile of the length distribution, so
// that the runs of a section (one per wake-up latency sample) place and
// size their hiccups differently.
func (s *state) resetNoise(ov machine.Overheads) {
	hz, p50, p90 := ov.NoiseHz, ov.NoiseP50Ns, ov.NoiseP90Ns
	if !(hz > 0) || !(p50 > 0) || math.IsInf(hz, 0) || math.IsInf(p50, 0) {
		return
	}
	s.noise = true
	s.nzMu = math.Log(p50)
	if p90 > p50 && !math.IsInf(p90, 0) {
		s.nzSigma = machine.LogNormal(p50, p90).Sigma
	}
	mean := p50 * math.Exp(s.nzSigma*s.nzSigma/2)
	s.nzScale = max(1-hz/1e9*mean, 0)
	s.nzU = 0.5
	if s.hoSigma > 0 {
		s.nzU = s.hoU
	}
	s.nzGap = int64(min(max(math.Round(1e9/hz*gridScale), 1), 1<<62))
	s.nzAcc = int64(s.nzU * float64(s.nzGap))
}

// noisy returns lock hold l (burdened, on the grid) with the machine's
// noise: a core loses its goroutine for a moment NoiseHz times a second
// while the other cores run on (a timer interrupt, the hypervisor), for
// log-normal lengths with median NoiseP50Ns and 90th percentile
// NoiseP90Ns. The recorded lengths carry those hiccups on average, so l
// is first scaled down by their mean share of the time; then every
// hiccup that falls in the hold (one per 1/NoiseHz seconds of recorded
// hold time, counted across the run's holds) is added whole, each
// taking the quantile 1/φ further on than the one before. The mean hold
// is unchanged; what changes is that now and then one hold is
// microseconds to tens of microseconds longer, as real ones are, and
// every waiter waits for it: that is what turns a contended loop's
// collision-free rhythm (the next request just after each release) into
// a convoy of hand-offs in real runs, which an emulation without noise
// never leaves. Hiccups outside lock holds hold up only their own
// goroutine, which the recorded means already carry; they are not
// emulated, and neither are moments in which every core stops at once,
// which the recorded means carry too and which hold up no waiter
// against its holder. The result is on the grid.
func (s *state) noisy(l float64) float64 {
	if !s.noise {
		return l
	}
	out := s.held(l)
	s.nzAcc += int64(l * gridScale)
	for s.nzAcc >= s.nzGap {
		s.nzAcc -= s.nzGap
		s.nzHits++
		out += onGrid(math.Exp(s.nzMu + s.nzSigma*nextZ(&s.nzU)))
	}
	return out
}

// held is a hold of recorded length l without hiccups: l itself, or
// with noise l scaled down by the noise's mean share (see noisy), on the
// grid.
func (s *state) held(l float64) float64 {
	if !s.noise {
		return l
	}
	return onGrid(l * s.nzScale)
}

// quietHolds returns how many holds of recorded length l, from now on,
// take no hiccup of the machine's noise: the closed forms (batch,
// batchDynamic, lockstep, lockstepSpawn) run at most that many at once,
// each held(l) long, and then account for them with passHolds, which
// leaves the noise exactly where noisy, hold by hold, would have. Without
// noise, or for holds of no length, there is no bound.
func (s *state) quietHolds(l float64) int64 {
	lg := int64(l * gridScale)
	if !s.noise || lg <= 0 {
		return math.MaxInt64
	}
	return max(s.nzGap-1-s.nzAcc, 0) / lg
}

// passHolds accounts for k quiet holds of recorded length l (see
// quietHolds).
func (s *state) passHolds(l float64, k int64) {
	if s.noise {
		s.nzAcc += k * int64(l*gridScale)
	}
}

// goldenStep is the step, in quantile, from one draw of a run's lock
// hand-off latencies (or noise hiccups) to the next: 1/φ, whose multiples
// modulo 1 spread evenly over (0, 1) however many there are.
const goldenStep = 0.6180339887498949

// nextZ returns the standard normal quantile at position *u (in (0, 1))
// and moves *u on by goldenStep, modulo 1: a deterministic sequence of
// draws that covers the distribution evenly.
func nextZ(u *float64) float64 {
	at := min(max(*u, 1e-9), 1-1e-9)
	*u += goldenStep
	*u -= math.Floor(*u)
	return distuv.UnitNormal.Quantile(at)
}

// nextHandoffFactor returns the factor on LockHandoffNs of the run's
// next lock hand-off, e^(σz) for the next draw z (nextZ).
func (s *state) nextHandoffFactor() float64 {
	return math.Exp(s.hoSigma * nextZ(&s.hoU))
}
