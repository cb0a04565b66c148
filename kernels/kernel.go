// Package kernels holds prophet's bundled example programs: real kernels,
// each with an annotated serial version (for profiling) and a real parallel
// version built on package par (for measuring the true speedup), working on
// the same input. The commands under examples/ run them; `prophet demo` and
// `prophet validate --examples` use them in-process.
package kernels

import (
	"fmt"
	"sort"
	"strings"

	"github.com/parallel-prophet/prophet/par"
)

// Kernel is one example program.
type Kernel interface {
	// Name is the kernel's short name ("lu", "qsort", ...).
	Name() string
	// Describe says in one line what the kernel does and how it is
	// parallelized.
	Describe() string
	// Schedule is the schedule its parallel version is written for.
	Schedule() par.Schedule
	// Reset restores the input, so every run does the same work.
	Reset()
	// Serial runs the annotated serial version once.
	Serial()
	// Parallel runs the real parallel version once with threads
	// goroutine workers and schedule s.
	Parallel(threads int, s par.Schedule)
	// Check reports whether the last run's result is correct.
	Check() error
}

// Factory makes a kernel whose serial run takes roughly scale × its
// default size (scale 1 is a run of a few hundred milliseconds or less).
type Factory func(scale float64) Kernel

// registry lists the kernels; it is written only here and never changed.
var registry = map[string]Factory{}

// register is called from the kernel files' var blocks.
func register(name string, f Factory) bool {
	registry[name] = f
	return true
}

// Names returns the names of all kernels, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns the kernel called name at the given scale.
func New(name string, scale float64) (Kernel, error) {
	f, ok := registry[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("unknown example %q (have %s)", name, strings.Join(Names(), ", "))
	}
	if scale <= 0 {
		scale = 1
	}
	return f(scale), nil
}
