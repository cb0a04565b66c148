package annotate

import (
	"encoding/json"
	"io"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// EnvProbe is the environment variable that starts a memory probe
// (package memprobe) beside the recording EnvVar starts: bandwidth
// bandits run on the other cores beside some of the program's top-level
// sections, and Stop writes what was measured to the file it names, as
// JSON (memprobe.Raw). The probe's own time is held out of the
// recording; the slowdown its bandits caused is in the recorded runs
// they streamed beside, and memprobe.Correct takes it back out (prophet
// run --memory-probe does). Without EnvVar it does nothing.
const EnvProbe = "PROPHET_PROBE"

// probeBeside starts a probe to run beside the recording EnvVar asks
// for, when getenv(EnvProbe) names a path that can be written, and
// returns it for installProbe once the recording has started; nil when
// none is asked for or it cannot write its measurements: a probe that
// cannot start leaves the recording without one (prophet run says so),
// never failing it.
func probeBeside(getenv func(string) string) *memprobe.Prober {
	path := getenv(EnvProbe)
	if path == "" || getenv(EnvVar) == "" {
		return nil
	}
	if _, err := atomicfile.Check(path); err != nil {
		return nil
	}
	// The bandits make their buffers before the program starts: made
	// beside it, their page faults would take the program's core from
	// it, and the recording would show it as a task struck by an
	// interrupt.
	return memprobe.Start(memprobe.Options{Wait: true})
}

// installProbe puts pr beside the recording started from the
// environment; Stop writes its measurements to path.
func installProbe(pr *memprobe.Prober, path string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.probePath = path
	besideRecording(rec.p.Load(), pr)
}

// besideRecording puts pr beside recording p; rec.mu is held. The
// profiler passes it the task ends it asks for (Profiler.SetTaskHook),
// so that annotate.TaskEnd stays one load and a branch; SecBegin and
// SecEnd pass it the sections.
func besideRecording(p *profiler.Profiler, pr *memprobe.Prober) {
	p.SetTaskHook(func(ends int64) int64 { return pr.TaskEnds(p, ends) })
	rec.probe.Store(pr)
}

// stopProbe ends the probe beside a recording started from the
// environment and writes its measurements; rec.mu is held.
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

// Probe records fn serially with a memory probe beside its top-level
// sections (package memprobe) and returns what the probe measured, for
// memprobe.Analyze (the bandits are ready before fn starts: opt.Wait is
// set); RecordProbed also returns the recording. It fails if recording
// or another probe is on. If fn panics, the probe and the recording are
// stopped and the panic goes on.
func Probe(opt memprobe.Options, fn func()) (memprobe.Raw, error) {
	_, raw, err := RecordProbed(profiler.Options{}, opt, fn)
	return raw, err
}

// RecordProbed records fn in-process with profiler options opt and a
// memory probe with options popt beside it, as prophet run
// --memory-probe does, and returns the program tree, as recorded (the
// runs the bandits streamed beside are slower: memprobe.Correct takes
// that back out), and the probe's measurements.
func RecordProbed(opt profiler.Options, popt memprobe.Options, fn func()) (*tree.Tree, memprobe.Raw, error) {
	popt.Wait = true // nothing to overlap the bandits' setup with
	// Started first: it sees the CPUs the process may use before the
	// recording binds the thread to one.
	pr := memprobe.Start(popt)
	stopped := false
	defer func() {
		if !stopped { // fn panicked
			pr.Stop()
		}
	}()
	t, err := record(opt, pr, fn)
	stopped = true
	raw := pr.Stop()
	if err != nil {
		return nil, memprobe.Raw{}, err
	}
	return t, raw, nil
}
