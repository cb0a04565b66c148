package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parallel-prophet/prophet/kernels"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/par"
)

// subject is something validate can measure: a generated program or a
// kernel.
type subject struct {
	test, sample, desc string
	seed               uint64
	reset              func()
	serial             func()
	// plain, when not nil, is serial without its annotations, the
	// baseline of the real speedups (see Program.SerialPlain); serial
	// is the baseline otherwise.
	plain     func()
	parallel  func(threads int, s par.Schedule)
	check     func() error
	schedules []par.Schedule
	// open, when not nil, fills in the rest just before measuring.
	open func(s *subject) error
	// probes, when not nil, holds the memory probe runs of an example
	// measured with the probe (see measurer.probe).
	probes *[]memprobe.Raw
}

// subjects lists what cfg asks to measure.
func (c Config) subjects() ([]subject, error) {
	var out []subject
	if c.Examples {
		names := c.Kernels
		if len(names) == 0 {
			names = kernels.Names()
		}
		known := kernels.Names()
		for _, name := range names {
			if !slices.Contains(known, name) {
				return nil, fmt.Errorf("unknown example %q (have %s)", name, strings.Join(known, ", "))
			}
			// The kernel (and its input) is made only when measured.
			out = append(out, subject{test: Examples, sample: name, open: func(s *subject) error {
				k, err := kernels.New(name, c.Scale)
				if err != nil {
					return err
				}
				*s = kernelSubject(name, k)
				return nil
			}})
		}
		return out, nil
	}
	tests := []string{Test1, Test2}
	if c.Test != "" {
		tests = []string{c.Test}
	}
	for _, test := range tests {
		if err := canGenerate(test, c.Scale); err != nil {
			return nil, err
		}
		for i := 0; i < c.Samples; i++ {
			// The sample is generated only when measured: a fine
			// sample's iterations take up to tens of megabytes.
			out = append(out, subject{test: test, sample: strconv.Itoa(i), seed: SampleSeed(c.Seed, test, i), open: func(s *subject) error {
				p, err := Generate(s.test, s.seed, c.Scale)
				if err != nil {
					return err
				}
				s.desc, s.reset, s.serial, s.plain, s.parallel = p.Desc, func() {}, p.Serial, p.SerialPlain, p.Parallel
				s.check, s.schedules = func() error { return nil }, c.Schedules
				return nil
			}})
		}
	}
	return out, nil
}

// kernelSubject is kernel k, called name, as a subject measured with
// its own schedule.
func kernelSubject(name string, k kernels.Kernel) subject {
	return subject{
		test: Examples, sample: name, desc: k.Describe(),
		reset: k.Reset, serial: k.Serial, parallel: k.Parallel, check: k.Check,
		schedules: []par.Schedule{k.Schedule()},
	}
}
