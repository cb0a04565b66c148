package annotate

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parallel-prophet/prophet/internal/fpu"
	"github.com/parallel-prophet/prophet/memprobe"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// EnvVar is the environment variable that starts recording at program
// start; its value is the profile's path.
const EnvVar = "PROPHET_PROFILE"

// EnvTolerance is the environment variable that sets the compression
// tolerance of a recording started by EnvVar (tree.BuildOptions.Tolerance:
// a relative difference such as 0.01; negative for exact lengths). Unset
// or empty, the profiler's default (tree.DefaultTolerance) applies.
// `prophet run --tolerance` sets it.
const EnvTolerance = "PROPHET_TOLERANCE"

// EnvRace is the environment variable that starts race mode at program
// start, in a program built with -race (`prophet race` sets it): its
// value is the file where annotate writes which goroutine ran which
// task. In race mode nothing is recorded; each task written with Task
// or Loop runs on a goroutine of its own, one after another, so that the
// race detector sees the tasks of a section as concurrent (see the
// package documentation). In a program built without -race, annotate
// writes a line there saying so and runs as usual.
const EnvRace = "PROPHET_RACE"

// EnvProgram is the environment variable that names the recorded
// program as the user gave it (`prophet run` sets it to the command line
// after --, such as "go run ./cmd/x"); the profile then shows that rather
// than the path of the binary, which for go run is a temporary one.
const EnvProgram = "PROPHET_PROGRAM"

// EnvErrors is the environment variable naming a file where Stop also
// writes its error, when recording was started by EnvVar. `prophet run`
// sets it, so it can report an annotation error even when the program
// ignores Stop's result.
const EnvErrors = "PROPHET_PROFILE_ERRORS"

// recorder is the package's one piece of global state: the active
// profiler (read by every annotation call) and where its tree goes.
type recorder struct {
	p atomic.Pointer[profiler.Profiler]
	// paused holds the profiler while Pause has taken it out of p, so
	// that annotation calls meanwhile cost what they cost with
	// recording off.
	paused *profiler.Profiler

	mu     sync.Mutex // serializes Start, Stop and Record
	path   string     // where Stop writes the tree
	inFn   bool       // recording belongs to Record, not to Start
	envErr error      // a failure to start from the environment, reported by Stop
	errTo  string     // EnvErrors' file, when recording started from the environment
	// repeat and repeatTo are the pool of a recording started with
	// EnvRepeat and where Stop writes it back.
	repeat   *profiler.Repeat
	repeatTo string

	// probe is the memory probe beside the recording (EnvProbe,
	// RecordProbed), which sees its top-level sections.
	probe     atomic.Pointer[memprobe.Prober]
	probePath string // where Stop writes the probe's measurements
}

var rec recorder

func init() {
	if path := os.Getenv(EnvRace); path != "" && os.Getenv(EnvVar) == "" {
		if err := startRace(path); err != nil {
			fmt.Fprintf(os.Stderr, "annotate: %s=%s: %v\n", EnvRace, path, err)
		}
		return
	}
	// A probe beside the recording starts first: it sees the CPUs the
	// process may use before the recording binds its thread to one.
	pr := probeBeside(os.Getenv)
	if startFromEnv(os.Getenv) == nil && pr != nil {
		installProbe(pr, os.Getenv(EnvProbe))
	} else if pr != nil {
		pr.Stop()
	}
}

// startFromEnv starts recording when getenv(EnvVar) names a path. A
// failure is kept for Stop to report (init cannot return it), and also
// returned.
func startFromEnv(getenv func(string) string) error {
	path := getenv(EnvVar)
	if path == "" {
		return nil
	}
	// Recorded from init, on the main goroutine; a test binary calls
	// the annotations from its tests' goroutines: the first to record
	// owns the recording.
	opt := profiler.Options{Adopt: true, Program: getenv(EnvProgram)}
	err := envTolerance(getenv(EnvTolerance), &opt)
	var rp *profiler.Repeat
	repeatTo := getenv(EnvRepeat)
	if err == nil && repeatTo != "" {
		rp, err = loadRepeat(repeatTo)
		opt.Repeat = rp
	}
	if err == nil {
		if err = StartWith(path, opt); err != nil {
			err = fmt.Errorf("%s=%s: %w", EnvVar, path, err)
		}
	}
	rec.mu.Lock()
	rec.errTo = getenv(EnvErrors)
	if err != nil {
		rec.envErr = err
	} else if rp != nil {
		rec.repeat, rec.repeatTo = rp, repeatTo
	}
	rec.mu.Unlock()
	return err
}

// SecBegin marks the start of a parallel section (a loop to be
// parallelized, a group of spawned calls) named name.
func SecBegin(name string) {
	if p := rec.p.Load(); p != nil {
		if pr := rec.probe.Load(); pr != nil {
			pr.SecBegin(name, p) // before the recording sees it: see memprobe.Holder
		}
		p.SecBegin(name)
	} else if raceBuild && raceOn {
		raceSecBegin(name)
	}
}

// SecEnd marks the end of the innermost section. The section ends with a
// barrier unless nowait.
func SecEnd(nowait bool) {
	if p := rec.p.Load(); p != nil {
		p.SecEnd(nowait)
		if pr := rec.probe.Load(); pr != nil {
			pr.SecEnd(p)
		}
	} else if raceBuild && raceOn {
		raceSecEnd(nowait)
	}
}

// TaskBegin marks the start of a task (a loop iteration, a spawned call)
// of the innermost section.
func TaskBegin(name string) {
	if p := rec.p.Load(); p != nil {
		p.TaskBegin(name)
	} else if raceBuild && raceOn {
		raceInline()
	}
}

// TaskEnd marks the end of the innermost task.
func TaskEnd() {
	if p := rec.p.Load(); p != nil {
		p.TaskEnd()
	}
}

// LockBegin marks acquiring lock id (a critical section begins).
func LockBegin(id int) {
	if p := rec.p.Load(); p != nil {
		p.LockBegin(id)
	} else if raceBuild && raceOn {
		raceLockBegin(id)
	}
}

// LockIndexedBegin marks acquiring lock id for a critical section that
// updates data the task picks by what it computed: a histogram's bin
// (bins[hash(x)]++), a slot of a table by key, an element appended at a
// length read under the lock; not one fixed variable (total += x), which
// LockBegin marks. LockEnd(id) ends it, as it ends LockBegin.
//
// The difference is in the parallel program's cache: a fixed variable's
// address is known before the Lock, so a core fetches its line while it
// takes the lock, but an address computed late is fetched only inside
// the critical section, which then holds the lock the longer wherever
// the lock and the data come from another core. Predictions charge that
// for the critical sections marked here.
func LockIndexedBegin(id int) {
	if p := rec.p.Load(); p != nil {
		p.LockIndexedBegin(id)
	} else if raceBuild && raceOn {
		raceLockBegin(id)
	}
}

// LockEnd marks releasing lock id (begun with LockBegin or
// LockIndexedBegin).
func LockEnd(id int) {
	if p := rec.p.Load(); p != nil {
		p.LockEnd(id)
	} else if raceBuild && raceOn {
		raceLockEnd(id)
	}
}

// SetupBegin marks the start of per-worker setup: work the serial program
// does in every task (or once before a section's tasks) that the
// parallel version does once per worker, such as allocating a scratch
// buffer, taking one from a sync.Pool or opening a file. Predictions
// charge it once per worker that runs the section's tasks (a goroutine
// per task, as with spawn, pays it in every task). It holds computation
// only: no section, task or lock inside.
func SetupBegin() {
	if p := rec.p.Load(); p != nil {
		p.SetupBegin()
	}
}

// SetupEnd marks the end of per-worker setup.
func SetupEnd() {
	if p := rec.p.Load(); p != nil {
		p.SetupEnd()
	}
}

// Recording reports whether annotation calls are being recorded (false
// while paused).
func Recording() bool { return rec.p.Load() != nil }

// Pause leaves what the program does next out of the recording, until
// Resume: setting up the input, writing the results, anything that is
// not the program being predicted. Nothing is written and the
// recording's options stay; the profile says how long it was paused
// (tree.Meta.PausedNs), and predictions say that time was left out.
// Annotation calls in between are not recorded, so pause and resume
// outside any section (or around whole sections). Pause when not
// recording, or when paused, does nothing. Call it from the recording
// goroutine.
func Pause() {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if p := rec.p.Load(); p != nil {
		p.Pause()
		rec.p.Store(nil)
		rec.paused = p
	}
}

// Resume resumes a recording paused by Pause; otherwise it does nothing.
func Resume() {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if p := rec.paused; p != nil {
		rec.paused = nil
		p.Resume()
		rec.p.Store(p)
	}
}

// ErrRecording is returned by Start and Record when recording is already
// on.
var ErrRecording = errors.New("annotate: already recording")

// envTolerance sets opt's compression tolerance from EnvTolerance's value
// s, when s is not empty.
func envTolerance(s string, opt *profiler.Options) error {
	if s == "" {
		return nil
	}
	tol, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err == nil {
		err = tree.CheckTolerance(tol)
	} else {
		err = errors.New("not a number")
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %w", EnvTolerance, s, err)
	}
	opt.Build.Tolerance = tol
	return nil
}

// Start starts recording on the calling goroutine; Stop writes the profile
// to path. It fails if recording is already on or path cannot be written.
func Start(path string) error {
	return StartWith(path, profiler.Options{})
}

// StartWith is Start with profiler options (for example a compression
// tolerance, Options.Build.Tolerance).
func StartWith(path string, opt profiler.Options) error {
	if path == "" {
		return errors.New("annotate: empty profile path")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.p.Load() != nil {
		return ErrRecording
	}
	if err := checkWritable(path); err != nil {
		return err
	}
	if opt.Tool == "" {
		opt.Tool = toolVersion()
	}
	p, err := profiler.Start(opt)
	if err != nil {
		return err
	}
	rec.path, rec.inFn = path, false
	rec.envErr = nil
	rec.p.Store(p)
	return nil
}

// Stop stops recording and writes the profile to the path given to Start
// (or PROPHET_PROFILE), atomically: a reader never sees half a file. On an
// annotation error it returns the error (a *profiler.AnnotationError) and
// writes nothing. When not recording it returns nil, or the error that
// kept PROPHET_PROFILE from starting. Call it from the goroutine that
// started recording.
func Stop() error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	err := stop()
	if err != nil && rec.errTo != "" {
		// Best effort: the error is also returned to the program.
		_ = os.WriteFile(rec.errTo, []byte(err.Error()+"\n"), 0o644)
	}
	return err
}

// stop is Stop with rec.mu held.
func stop() error {
	if rec.paused != nil {
		// Stopped while paused: the pause ends where the recording
		// does (Profiler.Stop leaves the paused time out).
		rec.p.Store(rec.paused)
		rec.paused = nil
	}
	p := rec.p.Load()
	if p == nil {
		err := rec.envErr
		rec.envErr = nil
		return err
	}
	if rec.inFn {
		return errors.New("annotate: Stop called inside Record (Record stops by itself)")
	}
	rec.p.Store(nil)
	t, err := p.Stop()
	if rec.probePath != "" {
		// After the recording's end, so that closing the bandits is
		// not in it. What the probe could not write shows as a profile
		// without a probe; the recording goes on.
		_ = stopProbe()
		rec.probePath = ""
	}
	if err != nil {
		return err
	}
	if err := writeTree(rec.path, t); err != nil {
		return err
	}
	if rp, to := rec.repeat, rec.repeatTo; rp != nil {
		rec.repeat, rec.repeatTo = nil, ""
		return saveRepeat(to, rp)
	}
	return nil
}

// Record records fn in-process and returns its program tree without
// writing a file. It fails if recording is already on. If fn panics,
// recording is stopped and the panic goes on.
func Record(fn func()) (*tree.Tree, error) {
	return RecordWith(profiler.Options{}, fn)
}

// RecordWith is Record with profiler options (for example NoCounters or a
// compression tolerance). fn starts with a clear vector register state,
// as package par's workers do (see package internal/fpu).
func RecordWith(opt profiler.Options, fn func()) (t *tree.Tree, err error) {
	return record(opt, nil, fn)
}

// record records fn in-process, with probe pr beside the recording
// where it is not nil (it is stopped by the caller).
func record(opt profiler.Options, pr *memprobe.Prober, fn func()) (t *tree.Tree, err error) {
	rec.mu.Lock()
	if rec.p.Load() != nil || rec.paused != nil {
		rec.mu.Unlock()
		return nil, ErrRecording
	}
	if opt.Tool == "" {
		opt.Tool = toolVersion()
	}
	p, err := profiler.Start(opt)
	if err != nil {
		rec.mu.Unlock()
		return nil, err
	}
	rec.path, rec.inFn = "", true
	if pr != nil {
		besideRecording(p, pr)
	}
	rec.p.Store(p)
	rec.mu.Unlock()

	done := false
	defer func() {
		if !done { // fn panicked: stop recording, keep panicking
			rec.mu.Lock()
			rec.p.Store(nil)
			rec.probe.Store(nil)
			rec.mu.Unlock()
			p.Stop()
		}
	}()
	// Record fn at the speed it runs serially: a goroutine that resumed
	// on a thread that was asleep can run floating-point code a third
	// slower until its vector state is cleared (see internal/fpu), and
	// package par's workers clear it, so a recording that kept it would
	// make every parallel run look superlinear.
	fpu.ClearUpper()
	fn()
	done = true

	rec.mu.Lock()
	rec.p.Store(nil)
	rec.probe.Store(nil)
	rec.mu.Unlock()
	return p.Stop()
}

// toolVersion names the version of prophet's annotate package that this
// program was built with, for the profile: the prophet module's version
// among the program's dependencies, or, where the program is prophet's
// own module, its version or VCS revision; "" where the build recorded
// none.
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	mod := strings.TrimSuffix(reflect.TypeFor[recorder]().PkgPath(), "/annotate")
	if bi.Main.Path != mod {
		for _, d := range bi.Deps {
			if d.Path == mod {
				return mod + " " + d.Version
			}
		}
		return ""
	}
	v := bi.Main.Version
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" {
			v += " " + st.Value[:min(len(st.Value), 12)]
		}
	}
	return mod + " " + v
}
