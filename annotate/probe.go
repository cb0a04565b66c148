package annotate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/tree"
)

// EnvProbe is the environment variable that starts a memory probe run
// (package memprobe) at program start instead of a recording: bandwidth
// bandits run on the other cores beside some of the program's top-level
// sections, and Stop writes what was measured to the file it names, as
// JSON (memprobe.Raw). `prophet run --memory-probe` sets it for its
// second run of the program.
const EnvProbe = "PROPHET_PROBE"

// EnvProbeProfile names the plain recording of the same program, whose
// sections' run counts plan the probe (a section run once is measured on
// that run).
const EnvProbeProfile = "PROPHET_PROBE_PROFILE"

// ErrProbing: a probe run is under way.
var ErrProbing = errors.New("annotate: a memory probe is running")

// startProbeFromEnv starts a probe run when getenv(EnvProbe) names a
// path; a failure is kept for Stop to report.
func startProbeFromEnv(getenv func(string) string) error {
	path := getenv(EnvProbe)
	opt := memprobe.Options{}
	var err error
	if prof := getenv(EnvProbeProfile); prof != "" {
		var t *tree.Tree
		if t, err = tree.ReadFile(prof); err == nil {
			opt = memprobe.OptionsFor(t)
		}
	}
	if err == nil {
		if _, err = atomicfile.Check(path); err == nil {
			rec.probe.Store(memprobe.Start(opt))
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.probePath = path
	rec.errTo = getenv(EnvErrors)
	if err != nil {
		rec.envErr = fmt.Errorf("%s=%s: %w", EnvProbe, path, err)
	}
	return err
}

// stopProbe ends a probe run started from the environment and writes its
// measurements; rec.mu is held.
func stopProbe() error {
	pr := rec.probe.Swap(nil)
	if pr == nil {
		return nil
	}
	raw := pr.Stop()
	return atomicfile.Write(rec.probePath, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(raw)
	})
}

// Probe runs fn serially with a memory probe beside its top-level
// sections (package memprobe) and returns what it measured, for
// memprobe.Analyze with a recording of the same fn (the bandits are
// ready before fn starts: opt.Wait is set). It fails if recording or
// another probe is on. If fn panics, the probe is stopped and the panic
// goes on.
func Probe(opt memprobe.Options, fn func()) (memprobe.Raw, error) {
	rec.mu.Lock()
	if rec.p.Load() != nil {
		rec.mu.Unlock()
		return memprobe.Raw{}, ErrRecording
	}
	if rec.probe.Load() != nil {
		rec.mu.Unlock()
		return memprobe.Raw{}, ErrProbing
	}
	opt.Wait = true // nothing to overlap the bandits' setup with
	pr := memprobe.Start(opt)
	rec.probe.Store(pr)
	rec.mu.Unlock()
	done := false
	defer func() {
		if !done {
			rec.probe.CompareAndSwap(pr, nil)
			pr.Stop()
		}
	}()
	fn()
	done = true
	rec.probe.CompareAndSwap(pr, nil)
	return pr.Stop(), nil
}
