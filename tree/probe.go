package tree

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
)

// MemoryProbe is what the memory-bandwidth probe measured beside a
// recording (package memprobe): how much each top-level section slowed
// down while bandwidth bandits streamed on other cores, and how much
// bandwidth it took from them. It stands in for hardware counters where
// a machine has none (format version 4 on).
type MemoryProbe struct {
	// Cores is the number of CPUs the probe could use.
	Cores int `json:"cores"`
	// Curve is the machine's bandwidth curve as the probe measured it
	// before the program's sections: the traffic of each of n bandits
	// streaming together, for the n it measured, in increasing n.
	Curve []ProbeStreams `json:"curve,omitempty"`
	// Note says why the probe measured less than it meant to, or
	// nothing at all (one core, starved bandits); empty when it did
	// all it planned.
	Note string `json:"note,omitempty"`
	// Sections maps a top-level section's name to what was measured of
	// its runs (a section run many times pools its runs).
	Sections map[string]ProbeSection `json:"sections,omitempty"`
}

// ProbeStreams is one point of the bandwidth curve.
type ProbeStreams struct {
	// Streams is the number of bandits streaming at once.
	Streams int `json:"streams"`
	// MBs is each one's traffic in MB/s (per second of its CPU time).
	MBs float64 `json:"mbs"`
}

// ProbeSection is what the probe measured of one section name.
type ProbeSection struct {
	// Points are the bandit counts it ran beside the section, in
	// increasing Bandits.
	Points []ProbePoint `json:"points"`
}

// ProbePoint is the section's behaviour beside Bandits bandits.
type ProbePoint struct {
	// Bandits is the number of bandits streaming beside the section,
	// each with Spin rounds of register-only work per line it loads
	// (0: full intensity).
	Bandits int `json:"bandits"`
	Spin    int `json:"spin,omitempty"`
	// Load is the bandits' demand for bandwidth in full bandits: the
	// traffic they make alone over one full bandit's (Bandits at full
	// intensity; less at a lower one).
	Load float64 `json:"load"`
	// Runs is the number of the section's runs measured beside them.
	Runs int `json:"runs"`
	// Slowdown is the section's time beside the bandits over its time
	// alone (1: no effect).
	Slowdown float64 `json:"slowdown"`
	// Share is the bandwidth the section took from the bandits, in
	// bandits: 1 when it slowed them as much as one more bandit would
	// have, 0 when it did not slow them at all (measured at full
	// intensity only; 0 at a lower one).
	Share float64 `json:"share"`
}

// check returns an error when p holds a value no probe can measure.
func (p *MemoryProbe) check() error {
	if p.Cores < 0 {
		return fmt.Errorf("memory probe: %d cores", p.Cores)
	}
	for i, c := range p.Curve {
		if c.Streams < 1 || !finitePos(c.MBs) || (i > 0 && c.Streams <= p.Curve[i-1].Streams) {
			return fmt.Errorf("memory probe: bad bandwidth curve point %d (%d streams, %g MB/s)", i, c.Streams, c.MBs)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Sections)) {
		for i, pt := range p.Sections[name].Points {
			if pt.Bandits < 1 || pt.Spin < 0 || pt.Runs < 1 || !finitePos(pt.Slowdown) || !finitePos(pt.Load) ||
				!(pt.Share >= 0) || math.IsInf(pt.Share, 0) || (i > 0 && pt.Load <= p.Sections[name].Points[i-1].Load) {
				return fmt.Errorf("memory probe: section %q: bad point %d (%+v)", name, i, pt)
			}
		}
	}
	return nil
}

func finitePos(f float64) bool { return f > 0 && !math.IsInf(f, 0) }

// encodeProbe appends p (nil: absent) to a version 4 payload.
func encodeProbe(b []byte, p *MemoryProbe) []byte {
	if p == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	f64 := func(f float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f)) }
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(p.Cores))
	str(p.Note)
	b = binary.AppendUvarint(b, uint64(len(p.Curve)))
	for _, c := range p.Curve {
		b = binary.AppendUvarint(b, uint64(c.Streams))
		f64(c.MBs)
	}
	names := slices.Sorted(maps.Keys(p.Sections))
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		str(n)
		pts := p.Sections[n].Points
		b = binary.AppendUvarint(b, uint64(len(pts)))
		for _, pt := range pts {
			b = binary.AppendUvarint(b, uint64(pt.Bandits))
			b = binary.AppendUvarint(b, uint64(pt.Spin))
			b = binary.AppendUvarint(b, uint64(pt.Runs))
			f64(pt.Load)
			f64(pt.Slowdown)
			f64(pt.Share)
		}
	}
	return b
}

// probe reads what encodeProbe wrote.
func (d *decoder) probe() *MemoryProbe {
	if d.byte("memory probe flag") == 0 || d.err != nil {
		return nil
	}
	p := &MemoryProbe{}
	p.Cores = d.smallInt("probe cores")
	p.Note = d.str("probe note")
	p.Curve = make([]ProbeStreams, d.count("probe curve points", 9))
	for i := range p.Curve {
		p.Curve[i] = ProbeStreams{Streams: d.smallInt("probe streams"), MBs: d.f64("probe traffic")}
	}
	if n := d.count("probed sections", 2); n > 0 {
		p.Sections = make(map[string]ProbeSection, n)
		for range n {
			name := d.str("probed section")
			pts := make([]ProbePoint, d.count("probe points", 27))
			for i := range pts {
				pts[i] = ProbePoint{Bandits: d.smallInt("probe bandits"), Spin: d.smallInt("probe spin"),
					Runs: d.smallInt("probe runs"), Load: d.f64("probe load"),
					Slowdown: d.f64("probe slowdown"), Share: d.f64("probe share")}
			}
			p.Sections[name] = ProbeSection{Points: pts}
		}
	}
	if d.err == nil {
		if err := p.check(); err != nil {
			d.fail("%v", err)
		}
	}
	return p
}

// smallInt reads a count that must fit an int comfortably.
func (d *decoder) smallInt(what string) int {
	v := d.uvarint(what)
	if v > 1<<30 {
		d.fail("%s %d is out of range", what, v)
		return 0
	}
	return int(v)
}
