// Package emulators is prophet's one list of its emulators: it maps the
// names the command line and validate.Config use ("ff", "syn") to the
// emulators they stand for, so that a new emulator is added here once.
package emulators

import (
	"fmt"
	"strings"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/emulate/syn"
)

// Options tune the emulators New makes.
type Options struct {
	// Replays is how many timed replays an emulator that measures the
	// machine (the synthesizer) takes per prediction; 0 means its
	// default. Validation, which has the synthesizer predict once in
	// each of its rounds of real runs, sets 1.
	Replays int
}

// entry is one emulator of the list.
type entry struct {
	name string
	make func(Options) emulate.SectionEmulator
}

// list is in the order the emulators are shown.
var list = []entry{
	{"ff", func(Options) emulate.SectionEmulator { return ff.New() }},
	{"syn", func(o Options) emulate.SectionEmulator { return syn.New(syn.Options{Repeats: o.Replays}) }},
}

// Names returns the names of the emulators, in the order they are
// shown.
func Names() []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.name
	}
	return out
}

// New returns a new emulator called name.
func New(name string, opt Options) (emulate.SectionEmulator, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return e.make(opt), nil
}

// lookup returns the entry called name.
func lookup(name string) (entry, error) {
	for _, e := range list {
		if e.name == name {
			return e, nil
		}
	}
	return entry{}, fmt.Errorf("unknown emulator %q (want %s)", name, strings.Join(Names(), ", "))
}

// All returns a new emulator of every kind, in the order they are shown.
func All(opt Options) []emulate.SectionEmulator {
	out := make([]emulate.SectionEmulator, len(list))
	for i, e := range list {
		out[i] = e.make(opt)
	}
	return out
}

// Parse returns the emulators of a comma-separated list of names
// ("ff,syn"), in the order given; blanks around names and empty names
// are ignored, and a name given twice counts once. It is an error when
// no emulator is named.
func Parse(list string, opt Options) ([]emulate.SectionEmulator, error) {
	names, err := ParseNames(list)
	if err != nil {
		return nil, err
	}
	out := make([]emulate.SectionEmulator, len(names))
	for i, n := range names {
		if out[i], err = New(n, opt); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ParseNames checks a comma-separated list of emulator names as Parse
// does and returns the names.
func ParseNames(list string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		if _, err := lookup(n); err != nil {
			return nil, err
		}
		seen[n] = true
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no emulator given (want %s)", strings.Join(Names(), ", "))
	}
	return names, nil
}
