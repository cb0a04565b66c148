package memmodel

import (
	"errors"
	"fmt"
	"math"
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
	// Probed is the number of top-level sections the memory probe
	// measured.
	Probed int `json:"probed_sections,omitempty"`
	// Source says where the burden factors come from: SourceCounters,
	// SourceProbe or both joined by " and " (empty when not applied).
	Source string `json:"source,omitempty"`
	// ProbeCores is the number of cores the probe measured on: β at
	// more threads is extrapolated (0 without a probe).
	ProbeCores int `json:"probe_cores,omitempty"`
	// Disagree lists the sections whose β from counters and from the
	// probe differ by more than 0.05.
	Disagree []string `json:"disagree,omitempty"`
	// MaxBeta is the largest β over the sections at MaxBetaThreads, the
	// largest thread count calibrated or probed (0 when not applied).
	MaxBeta        float64 `json:"max_beta,omitempty"`
	MaxBetaThreads int     `json:"max_beta_threads,omitempty"`
	// Inflation is the largest compute inflation κ_t applied, at
	// InflationThreads (zero when none is).
	Inflation        float64 `json:"inflation,omitempty"`
	InflationThreads int     `json:"inflation_threads,omitempty"`
	// Reason is one sentence for every output, e.g. "memory model on
	// (β from memory probe): 3 sections probed, β_8 up to 1.42".
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

// Sources of burden factors (Status.Source, SectionBetas.Source).
const (
	SourceCounters = "hardware counters"
	SourceProbe    = "memory probe"
)

// model is the memory model of one tree on one machine: where each top-level
// section's burden factors come from.
type model struct {
	counters bool // sections with counters use the equations
	m        machine.Memory
	ts       []int
	line     int
	probe    *tree.MemoryProbe // nil: not used
}

// beta returns β_t of top-level section sec, where it came from ("" for
// none) and whether it was extrapolated beyond the cores probed.
func (md *model) beta(sec *tree.Node, threads int) (beta float64, source string, extrapolated bool) {
	if sec == nil || sec.Kind != tree.KindSec {
		return 1, "", false
	}
	if md.counters && sec.Counters != nil {
		return compute(*sec.Counters, md.m, md.ts, md.line, threads).Beta, SourceCounters, false
	}
	if md.probe != nil {
		if _, ok := md.probe.Sections[sec.Name]; ok {
			d := ProbeBurden(md.probe, sec.Name, threads)
			return d.Beta, SourceProbe, d.Extrapolated || threads > md.probe.Cores
		}
	}
	return 1, "", false
}

// newModel decides, for t on p, which sources the model uses, and fills
// status's counts; reason is non-empty when it uses none.
func newModel(t *tree.Tree, p machine.Profile, status *Status) (md *model, reason string) {
	secs := TopSections(t)
	status.TopSections = len(secs)
	probe := t.Meta.Probe
	for _, s := range secs {
		if s.Counters != nil {
			status.Sections++
		}
		if probe != nil {
			if _, ok := probe.Sections[s.Name]; ok {
				status.Probed++
			}
		}
	}
	md = &model{}
	fits := p.Memory != nil && len(psiThreads(*p.Memory)) > 0
	if status.Sections > 0 && fits {
		md.counters = true
		md.m = *p.Memory
		md.m.Psi = make(map[int]machine.Fit, len(p.Memory.Psi))
		for k, v := range p.Memory.Psi {
			md.m.Psi[k] = v
		}
		md.ts = psiThreads(md.m)
		md.line = p.LineSize
	}
	if status.Probed > 0 {
		md.probe = probe
	}
	if md.counters || md.probe != nil {
		return md, ""
	}
	if len(secs) == 0 {
		return nil, "the profile has no parallel sections"
	}
	if status.Sections > 0 {
		return nil, "no machine profile with memory fits (run prophet calibrate)"
	}
	why := "the profile has no hardware counters"
	if t.Meta.CountersNote != "" {
		why += " (" + t.Meta.CountersNote + ")"
	}
	switch {
	case probe == nil:
		why += " and no memory probe (record it with prophet run --memory-probe on)"
	case probe.Note != "":
		why += " and the memory probe measured none of its sections: " + probe.Note
	default:
		why += " and the memory probe measured none of its sections (their runs were too short)"
	}
	return nil, why
}

// forMemory is ForTree's memory model alone.
func forMemory(t *tree.Tree, p machine.Profile, mode Mode) (burden func(sec *tree.Node, threads int) float64, status Status) {
	status.Mode = mode
	if mode == Off {
		status.Reason = "memory model off: turned off (--memory off)"
		return one, status
	}
	md, why := newModel(t, p, &status)
	if md == nil {
		status.Reason = "memory model off: " + why
		return one, status
	}
	burden = func(sec *tree.Node, threads int) float64 {
		b, _, _ := md.beta(sec, threads)
		return b
	}
	status.Applied = true
	var sources []string
	if md.counters {
		sources = append(sources, SourceCounters)
		status.MaxBetaThreads = md.ts[len(md.ts)-1]
	}
	if md.probe != nil {
		sources = append(sources, SourceProbe)
		status.ProbeCores = md.probe.Cores
		status.MaxBetaThreads = max(status.MaxBetaThreads, md.probe.Cores)
	}
	status.Source = strings.Join(sources, " and ")
	status.MaxBeta = 1
	secs := TopSections(t)
	for _, s := range secs {
		status.MaxBeta = max(status.MaxBeta, burden(s, status.MaxBetaThreads))
	}
	var parts []string
	if md.counters {
		parts = append(parts, countOf(status.Sections, status.TopSections, "with counters"))
	}
	if md.probe != nil {
		parts = append(parts, countOf(status.Probed, status.TopSections, "probed"))
	}
	status.Reason = fmt.Sprintf("memory model on (β from %s): %s, β_%d up to %.2f",
		status.Source, strings.Join(parts, ", "), status.MaxBetaThreads, status.MaxBeta)
	if md.probe != nil {
		status.Reason += fmt.Sprintf("; beyond %d threads β is extrapolated from the probe's saturation bandwidth (%.1f GB/s)",
			md.probe.Cores, SaturationMBs(md.probe)/1000)
		if md.probe.Note != "" {
			status.Reason += "; probe: " + md.probe.Note
		}
	}
	if md.counters && md.probe != nil {
		th := min(md.probe.Cores, status.MaxBetaThreads)
		for _, s := range secs {
			if s.Counters == nil {
				continue
			}
			if _, ok := md.probe.Sections[s.Name]; !ok {
				continue
			}
			bc := compute(*s.Counters, md.m, md.ts, md.line, th).Beta
			bp := ProbeBurden(md.probe, s.Name, th).Beta
			if math.Abs(bc-bp) > 0.05 {
				status.Disagree = append(status.Disagree, fmt.Sprintf("%s: β_%d %.2f from counters, %.2f from the probe", s.Name, th, bc, bp))
			}
		}
		if len(status.Disagree) > 0 {
			status.Reason += "; counters and probe disagree on " + strings.Join(status.Disagree, ", ")
		}
	}
	if md.counters {
		if w := weakFits(md.m); w != "" {
			status.Reason += " (weak fits: " + w + ")"
		}
	}
	return burden, status
}

// countOf says "3 sections probed", "1 of 4 sections with counters".
func countOf(n, of int, what string) string {
	noun := "sections"
	if n == 1 && n == of {
		noun = "section"
	}
	if n < of {
		return fmt.Sprintf("%d of %d %s %s", n, of, noun, what)
	}
	return fmt.Sprintf("%d %s %s", n, noun, what)
}

// SectionBetas is one top-level section's burden factors, for outputs
// that show them per section and thread count.
type SectionBetas struct {
	Name string `json:"name"`
	// Source is where they came from (SourceCounters, SourceProbe), empty
	// when the model has nothing for the section (every β is 1).
	Source string `json:"source,omitempty"`
	// Threads and Beta: Beta[i] is β at Threads[i].
	Threads []int     `json:"threads"`
	Beta    []float64 `json:"beta"`
	// Extrapolated[i] is true where Beta[i] lies beyond the cores the
	// probe measured on.
	Extrapolated []bool `json:"extrapolated,omitempty"`
}

// Betas returns every top-level section's memory burden factors (once per
// section name, without the compute inflation) at each of threads, as
// ForTree's burden function applies them; nil when the model is off.
func Betas(t *tree.Tree, p machine.Profile, mode Mode, threads []int) []SectionBetas {
	if mode == Off {
		return nil
	}
	var st Status
	md, _ := newModel(t, p, &st)
	if md == nil {
		return nil
	}
	var out []SectionBetas
	seen := map[string]bool{}
	for _, s := range TopSections(t) {
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		sb := SectionBetas{Name: s.Name, Threads: threads}
		anyExtra := false
		for _, th := range threads {
			b, src, ex := md.beta(s, th)
			if src != "" {
				sb.Source = src
			}
			sb.Beta = append(sb.Beta, b)
			sb.Extrapolated = append(sb.Extrapolated, ex)
			anyExtra = anyExtra || ex
		}
		if !anyExtra {
			sb.Extrapolated = nil
		}
		out = append(out, sb)
	}
	return out
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

// WorkBeta returns the memory burden factor of the whole of t at threads:
// its top-level sections' β (Auto mode, as ForTree applies them, without
// the compute inflation) weighted by their work, the sections the model
// has nothing for counting 1; and where the factors came from (empty
// when the model is off). It is how much the model stretches the
// program's parallel work, one number per thread count, where a single
// small section's large β would say little.
func WorkBeta(t *tree.Tree, p machine.Profile, threads int) (beta float64, source string) {
	var st Status
	md, _ := newModel(t, p, &st)
	if md == nil {
		return 1, ""
	}
	var work, weighted float64
	for _, s := range TopSections(t) {
		w := float64(tree.Work(s))
		b, src, _ := md.beta(s, threads)
		if src != "" && source == "" {
			source = src
		} else if src != "" && src != source {
			source = SourceCounters + " and " + SourceProbe
		}
		work += w
		weighted += w * b
	}
	if work <= 0 {
		return 1, source
	}
	return weighted / work, source
}
