package machine

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Limits of a machine profile's fields, wide enough for any machine and
// narrow enough that no emulation runs away on them.
const (
	// MaxOverheadNs bounds every cost of Overheads and Walk: a second.
	MaxOverheadNs = 1e9
	// MaxNoiseHz bounds Overheads.NoiseHz, and MaxNoiseShare the share
	// of a core's time the noise may take (NoiseHz × NoiseP90Ns).
	MaxNoiseHz    = 1e5
	MaxNoiseShare = 0.5
	// MaxCores bounds Cores and the thread counts of ComputeInflation
	// and Memory.Psi; MaxInflation bounds κ_t.
	MaxCores     = 1 << 16
	MaxInflation = 1000
)

// Validate checks every field of p against its range and returns an
// error naming each field out of it (nil when all are in range): a
// profile written by hand, damaged or from a hostile source must not
// make a prediction silently wrong or hang it.
func (p Profile) Validate() error {
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	in := func(name string, v, lo, hi float64) {
		if math.IsNaN(v) || v < lo || v > hi {
			add("%s = %g (want %g to %g)", name, v, lo, hi)
		}
	}
	if p.Cores < 0 || p.Cores > MaxCores {
		add("cores = %d (want 0 to %d)", p.Cores, MaxCores)
	}
	if p.LineSize < 0 || p.LineSize > 1<<16 || (p.Memory != nil && p.LineSize == 0) {
		add("line_size = %d (want 1 to 65536)", p.LineSize)
	}
	eachFloat(p.Overheads, func(name string, v float64) {
		if name == "noise_hz" {
			in(name, v, 0, MaxNoiseHz)
			return
		}
		in("overheads."+name, v, 0, MaxOverheadNs)
	})
	if share := p.Overheads.NoiseHz * p.Overheads.NoiseP90Ns / 1e9; share > MaxNoiseShare {
		add("overheads: noise_hz × noise_p90_ns = %.2f of a core's time (want at most %g)", share, MaxNoiseShare)
	}
	eachFloat(p.Walk, func(name string, v float64) { in("walk."+name, v, 0, MaxOverheadNs) })
	for t, k := range p.ComputeInflation {
		if t < 1 || t > MaxCores {
			add("compute_inflation: thread count %d (want 1 to %d)", t, MaxCores)
		}
		in(fmt.Sprintf("compute_inflation[%d]", t), k, 1, MaxInflation)
	}
	if m := p.Memory; m != nil {
		for t, f := range m.Psi {
			if t < 1 || t > MaxCores {
				add("memory.psi: thread count %d (want 1 to %d)", t, MaxCores)
			}
			checkFit(fmt.Sprintf("memory.psi[%d]", t), f, add)
		}
		checkFit("memory.phi", m.Phi, add)
		in("memory.freq_ghz", m.FreqGHz, 0, 100)
		in("memory.min_traffic_mbs", m.MinTrafficMBs, 0, 1e9)
	}
	if len(bad) == 0 {
		return nil
	}
	return errors.New(strings.Join(bad, "; "))
}

// checkFit checks that a fit's numbers are finite and its form known.
func checkFit(name string, f Fit, add func(string, ...any)) {
	switch f.Form {
	case "linear", "log", "power":
	default:
		add("%s.form = %q (want linear, log or power)", name, f.Form)
	}
	for _, v := range []float64{f.A, f.B, f.R2, f.MinX, f.MaxX} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e15 {
			add("%s: %g is not a usable number", name, v)
			return
		}
	}
}

// eachFloat calls fn with the JSON name and value of every float64
// field of the struct v, so that a field added later is checked too.
func eachFloat(v any, fn func(name string, v float64)) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Type.Kind() != reflect.Float64 {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		fn(name, rv.Field(i).Float())
	}
}
