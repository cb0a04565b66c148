package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
)

var _ = register("md", NewMD)

// MD parameters (OmpSCR c_md: three dimensions, unit mass, time step
// 1e-4, a box of side 10).
const (
	mdDim       = 3
	mdBaseN     = 1024
	mdSteps     = 4
	mdDt        = 1e-4
	mdMass      = 1.0
	mdBox       = 10.0
	mdUpdateBlk = 64 // particles per task of the update loop
)

// mdKernel is OmpSCR's molecular dynamics: N particles, an O(N²) force
// computation loop over the particles, then the velocity-Verlet update
// loop, for a few time steps. Both loops are parallel loops over
// particles; the energy reduction is done over per-particle values in
// order, so serial and parallel results are bitwise equal.
type mdKernel struct {
	np             int
	pos0           []float64
	pos, vel, acc  []float64
	force          []float64
	pot, kin       []float64 // per-particle energies of the last step
	potSum, kinSum float64   // total energies after the last step
	e0             float64   // total energy after the first step
	ref            []float64 // reference final positions (first Check)
	refPot         float64
}

// NewMD returns the MD kernel: 1024 particles and 4 steps at scale 1
// (the particle count grows with the square root of scale).
func NewMD(scale float64) Kernel {
	np := max(int(math.Round(mdBaseN*math.Sqrt(scale))), 8)
	k := &mdKernel{
		np:    np,
		pos0:  make([]float64, np*mdDim),
		pos:   make([]float64, np*mdDim),
		vel:   make([]float64, np*mdDim),
		acc:   make([]float64, np*mdDim),
		force: make([]float64, np*mdDim),
		pot:   make([]float64, np),
		kin:   make([]float64, np),
	}
	r := rand.New(rand.NewPCG(2, uint64(np)))
	for i := range k.pos0 {
		k.pos0[i] = r.Float64() * mdBox
	}
	k.Reset()
	return k
}

// Name implements Kernel.
func (k *mdKernel) Name() string { return "md" }

// Describe implements Kernel.
func (k *mdKernel) Describe() string {
	return fmt.Sprintf("molecular dynamics (OmpSCR md), %d particles, %d steps: parallel O(N²) force loop and update loop over particles", k.np, mdSteps)
}

// Schedule implements Kernel.
func (k *mdKernel) Schedule() par.Schedule { return par.Schedule{Policy: par.Static} }

// Reset implements Kernel.
func (k *mdKernel) Reset() {
	copy(k.pos, k.pos0)
	clear(k.vel)
	clear(k.acc)
	clear(k.force)
	k.potSum, k.kinSum, k.e0 = 0, 0, 0
}

// Serial runs the annotated serial version.
func (k *mdKernel) Serial() {
	blocks := (k.np + mdUpdateBlk - 1) / mdUpdateBlk
	for step := 0; step < mdSteps; step++ {
		annotate.SecBegin("md-forces")
		for i := 0; i < k.np; i++ {
			annotate.Task("particle", func() { k.forceOn(i) })
		}
		annotate.SecEnd(false)
		k.energies(step)
		annotate.SecBegin("md-update")
		for b := 0; b < blocks; b++ {
			annotate.Task("block", func() { k.update(b) })
		}
		annotate.SecEnd(false)
	}
}

// Parallel runs both loops with par.For and schedule s.
func (k *mdKernel) Parallel(threads int, s par.Schedule) {
	blocks := (k.np + mdUpdateBlk - 1) / mdUpdateBlk
	for step := 0; step < mdSteps; step++ {
		par.For(k.np, threads, s, k.forceOn)
		k.energies(step)
		par.For(blocks, threads, s, k.update)
	}
}

// mdPotential is OmpSCR's v(x) = sin²(min(x, π/2)) and its derivative.
func mdPotential(x float64) (v, dv float64) {
	x = math.Min(x, math.Pi/2)
	s, c := math.Sincos(x)
	return s * s, 2 * s * c
}

// forceOn computes the force on particle i and its potential and kinetic
// energy.
func (k *mdKernel) forceOn(i int) {
	var f [mdDim]float64
	var pot float64
	pi := k.pos[i*mdDim : i*mdDim+mdDim]
	for j := 0; j < k.np; j++ {
		if j == i {
			continue
		}
		pj := k.pos[j*mdDim : j*mdDim+mdDim]
		var rij [mdDim]float64
		var d2 float64
		for d := range mdDim {
			rij[d] = pi[d] - pj[d]
			d2 += rij[d] * rij[d]
		}
		dist := math.Sqrt(d2)
		v, dv := mdPotential(dist)
		pot += 0.5 * v
		for d := range mdDim {
			f[d] -= rij[d] * dv / dist
		}
	}
	var kin float64
	for d := range mdDim {
		k.force[i*mdDim+d] = f[d]
		vd := k.vel[i*mdDim+d]
		kin += vd * vd
	}
	k.pot[i] = pot
	k.kin[i] = 0.5 * mdMass * kin
}

// energies sums the per-particle energies in order (the reduction).
func (k *mdKernel) energies(step int) {
	var pot, kin float64
	for i := 0; i < k.np; i++ {
		pot += k.pot[i]
		kin += k.kin[i]
	}
	k.potSum, k.kinSum = pot, kin
	if step == 0 {
		k.e0 = pot + kin
	}
}

// update moves the particles of block b (velocity Verlet).
func (k *mdKernel) update(b int) {
	lo := b * mdUpdateBlk * mdDim
	hi := min((b+1)*mdUpdateBlk, k.np) * mdDim
	const rmass = 1 / mdMass
	for x := lo; x < hi; x++ {
		k.pos[x] += k.vel[x]*mdDt + 0.5*mdDt*mdDt*k.acc[x]
		k.vel[x] += 0.5 * mdDt * (k.force[x]*rmass + k.acc[x])
		k.acc[x] = k.force[x] * rmass
	}
}

// Check compares the final positions and energy with a reference run of
// the plain serial code and checks that total energy is conserved.
func (k *mdKernel) Check() error {
	if k.potSum == 0 {
		return fmt.Errorf("md: no result (the kernel has not run since Reset)")
	}
	if k.ref == nil {
		r := &mdKernel{np: k.np, pos0: k.pos0,
			pos: make([]float64, len(k.pos)), vel: make([]float64, len(k.vel)),
			acc: make([]float64, len(k.acc)), force: make([]float64, len(k.force)),
			pot: make([]float64, k.np), kin: make([]float64, k.np)}
		r.Reset()
		r.Parallel(1, par.Schedule{Policy: par.Static})
		k.ref, k.refPot = r.pos, r.potSum
	}
	for x := range k.pos {
		if k.pos[x] != k.ref[x] {
			return fmt.Errorf("md: coordinate %d of particle %d is %g, want %g", x%mdDim, x/mdDim, k.pos[x], k.ref[x])
		}
	}
	if k.potSum != k.refPot {
		return fmt.Errorf("md: potential energy %g, want %g", k.potSum, k.refPot)
	}
	e := k.potSum + k.kinSum
	if drift := math.Abs(e-k.e0) / math.Abs(k.e0); drift > 1e-3 || math.IsNaN(drift) {
		return fmt.Errorf("md: total energy drifted by %.3g (from %g to %g)", drift, k.e0, e)
	}
	return nil
}
