package memmodel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// Mode says whether burden factors are applied (prophet predict --memory).
type Mode int

// The modes of --memory.
const (
	// Auto applies burden factors when the profile has counters and the
	// machine profile has memory fits, and says why not otherwise.
	Auto Mode = iota
	// On requires them: Status.Err reports what is missing.
	On
	// Off never applies them.
	Off
)

var modeNames = [...]string{"auto", "on", "off"}

// String returns "auto", "on" or "off".
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "auto", "on" or "off" (case-insensitive).
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Mode(i), nil
		}
	}
	return Auto, fmt.Errorf("memory mode %q: want auto, on or off", s)
}

// Status says whether the memory model is applied to a tree, and why not.
type Status struct {
	Mode Mode `json:"mode"`
	// Applied is true when burden factors come from the model.
	Applied bool `json:"applied"`
	// Sections is the number of top-level sections with counters, of
	// TopSections top-level sections.
	Sections    int `json:"sections"`
	TopSections int `json:"top_sections"`
	// MaxBeta is the largest β over the sections at MaxBetaThreads, the
	// largest thread count calibrated (0 when not applied).
	MaxBeta        float64 `json:"max_beta,omitempty"`
	MaxBetaThreads int     `json:"max_beta_threads,omitempty"`
	// Inflation is the largest compute inflation κ_t applied, at
	// InflationThreads (zero when none is).
	Inflation        float64 `json:"inflation,omitempty"`
	InflationThreads int     `json:"inflation_threads,omitempty"`
	// Reason is one sentence for every output, e.g. "memory model on:
	// 3 sections, β_8 up to 1.42".
	Reason string `json:"reason"`
}

// Burdened reports whether burden factors other than 1 apply: the memory
// model's, the machine's compute inflation, or both.
func (s Status) Burdened() bool { return s.Applied || s.Inflation > 1 }

// String returns Reason.
func (s Status) String() string { return s.Reason }

// Err is non-nil when the mode is On but the model could not be applied.
func (s Status) Err() error {
	if s.Mode == On && !s.Applied {
		return errors.New("--memory on: " + s.Reason)
	}
	return nil
}

// one is the burden function of an unapplied model.
func one(*tree.Node, int) float64 { return 1 }

// TopSections returns the top-level Sec nodes of t, in program order
// (each node once, however many times its run repeats).
func TopSections(t *tree.Tree) []*tree.Node {
	if t == nil || t.Root == nil {
		return nil
	}
	var secs []*tree.Node
	for _, c := range t.Root.Children {
		if c.Kind == tree.KindSec {
			secs = append(secs, c)
		}
	}
	return secs
}

// ForTree returns the burden function for the emulators
// (emulate.Options.Burden) and the status to print. The function gives
// β_t for a top-level section node with counters and 1 for any other
// node; it is safe for concurrent use. With Off, or when the tree has
// no counters, or the machine profile no memory fits, it is constant 1
// and the status says why.
//
// Unless mode is Off, the machine's compute inflation κ_t
// (machine.Profile.ComputeInflation) multiplies every section's burden
// factor too, and the status says so; Burdened then reports whether any
// factor other than 1 applies.
func ForTree(t *tree.Tree, p machine.Profile, mode Mode) (burden func(sec *tree.Node, threads int) float64, status Status) {
	burden, status = forMemory(t, p, mode)
	if mode == Off {
		return burden, status
	}
	maxT, maxK := 0, 1.0
	for th, k := range p.ComputeInflation {
		if k > maxK || (k == maxK && k > 1 && th > maxT) {
			maxT, maxK = th, k
		}
	}
	if maxK <= 1 {
		return burden, status
	}
	status.Inflation, status.InflationThreads = maxK, maxT
	status.Reason += fmt.Sprintf("; compute inflation on: κ_%d = %.2f (the cores slow each other down when all compute)", maxT, maxK)
	mem := burden
	burden = func(sec *tree.Node, threads int) float64 {
		return mem(sec, threads) * p.Inflation(threads)
	}
	return burden, status
}

// forMemory is ForTree's memory model alone.
func forMemory(t *tree.Tree, p machine.Profile, mode Mode) (burden func(sec *tree.Node, threads int) float64, status Status) {
	status.Mode = mode
	secs := TopSections(t)
	status.TopSections = len(secs)
	for _, s := range secs {
		if s.Counters != nil {
			status.Sections++
		}
	}
	off := func(reason string) (func(*tree.Node, int) float64, Status) {
		status.Reason = "memory model off: " + reason
		return one, status
	}
	switch {
	case mode == Off:
		return off("turned off (--memory off)")
	case status.Sections == 0 && len(secs) == 0:
		return off("the profile has no parallel sections")
	case status.Sections == 0:
		note := ""
		if t.Meta.CountersNote != "" {
			note = " (" + t.Meta.CountersNote + ")"
		}
		return off("the profile has no hardware counters" + note)
	case p.Memory == nil || len(p.Memory.Psi) == 0:
		return off("no machine profile with memory fits (run prophet calibrate)")
	}
	m := *p.Memory
	m.Psi = make(map[int]machine.Fit, len(p.Memory.Psi))
	for k, v := range p.Memory.Psi {
		m.Psi[k] = v
	}
	line := p.LineSize
	ts := psiThreads(m)
	if len(ts) == 0 {
		return off("the machine profile has no Ψ fits for 2 or more threads")
	}
	burden = func(sec *tree.Node, threads int) float64 {
		if sec == nil || sec.Kind != tree.KindSec || sec.Counters == nil {
			return 1
		}
		return compute(*sec.Counters, m, ts, line, threads).Beta
	}
	status.Applied = true
	status.MaxBetaThreads = ts[len(ts)-1]
	status.MaxBeta = 1
	for _, s := range secs {
		status.MaxBeta = max(status.MaxBeta, burden(s, status.MaxBetaThreads))
	}
	of := ""
	if status.Sections < status.TopSections {
		of = fmt.Sprintf(" of %d", status.TopSections)
	}
	noun := "sections"
	if status.Sections == 1 && of == "" {
		noun = "section"
	}
	status.Reason = fmt.Sprintf("memory model on: %d%s %s with counters, β_%d up to %.2f",
		status.Sections, of, noun, status.MaxBetaThreads, status.MaxBeta)
	if w := weakFits(m); w != "" {
		status.Reason += " (weak fits: " + w + ")"
	}
	return burden, status
}

// weakFits lists the fits whose stored R² is below 0.9 (an R² of 0 means
// unknown, as in PaperMachine, and is not listed).
func weakFits(m machine.Memory) string {
	var weak []string
	for _, t := range psiThreads(m) {
		if r2 := m.Psi[t].R2; r2 > 0 && r2 < 0.9 {
			weak = append(weak, fmt.Sprintf("Ψ_%d R² %.2f", t, r2))
		}
	}
	if r2 := m.Phi.R2; r2 > 0 && r2 < 0.9 {
		weak = append(weak, fmt.Sprintf("Φ R² %.2f", r2))
	}
	return strings.Join(weak, ", ")
}
