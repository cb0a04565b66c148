//go:build race

package annotate

import (
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// raceBuild is true in a -race build: only there can race mode run.
const raceBuild = true

// Race mode (see EnvRace) runs each closure-form task (Task, Loop) on a
// goroutine of its own, one task after another, and hides from the race
// detector the hand-offs that make them one after another: the detector
// then sees the tasks of a section as concurrent, as they would be in
// the parallel program. The happens-before edges it does see are the
// parallel program's: a section's start (the go statement that starts
// each task), its end (each task releases onto its enclosing frame's
// address, which a barrier acquires) and the annotated locks (a real
// sync.Mutex per id).
//
// Everything annotate itself shares between task goroutines is read and
// written with sync/atomic operations inside RaceDisable, which the
// detector neither checks nor counts as synchronization, or is written
// by a goroutine before it starts the goroutines that read it (the go
// statement is a happens-before edge the parallel program has too).

// raceOn is set once, by init on the main goroutine, before any task.
var raceOn bool

// raceOut is the file descriptor of EnvRace's file.
var raceOut = -1

// raceFrame is where a goroutine is in the annotated program: the root
// (the main goroutine), a section, or a task.
type raceFrame struct {
	name   string
	parent *raceFrame
	// sync is the address the frame's tasks (for a task or the root:
	// the tasks of the sections it opens) release onto and its barriers
	// acquire.
	sync uint64
	// A section's task counter and whether it had tasks written with
	// TaskBegin/TaskEnd, which run inline and are not checked; both
	// touched only by the goroutine that opened the section.
	tasks  int
	inline bool
	// path is a section's name with the sections around it (racePath).
	path string
	// sites are the program's calls of Task and Loop that started a
	// section's tasks, each logged once per section instance (its
	// opener's only).
	sites map[[4]uintptr]bool
}

// raceCur is the frame of the one goroutine running annotated code.
var raceCur atomic.Pointer[raceFrame]

var raceRoot raceFrame

// raceLockSlots bounds the distinct lock ids with a mutex of their own;
// past it ids share mutexes (hashed), which can hide a race between
// critical sections of two ids that share one.
const raceLockSlots = 1 << 16

type raceLockSlot struct {
	claimed atomic.Bool
	id      atomic.Int64
	mu      sync.Mutex
}

// raceLocks is allocated by the main goroutine when race mode starts;
// raceLocksClaimed counts its claimed slots.
var (
	raceLocks        []raceLockSlot
	raceLocksClaimed atomic.Int64
)

// startRace switches race mode on, writing its log to path.
func startRace(path string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_APPEND|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	raceOut = fd
	raceLocks = make([]raceLockSlot, raceLockSlots)
	raceRoot = raceFrame{name: ""}
	raceCur.Store(&raceRoot)
	raceOn = true
	raceWrite([]byte("race " + strconv.Itoa(os.Getpid()) + "\n"))
	return nil
}

// raceWrite writes b to the race log with a system call, its
// synchronization hidden from the detector (syscall.Write releases onto
// a global address that every read acquires).
func raceWrite(b []byte) {
	runtime.RaceDisable()
	for len(b) > 0 {
		n, err := unix.Write(raceOut, b)
		if err != nil || n <= 0 {
			break
		}
		b = b[n:]
	}
	runtime.RaceEnable()
}

func raceCurrent() *raceFrame {
	runtime.RaceDisable()
	f := raceCur.Load()
	runtime.RaceEnable()
	return f
}

func raceSetCurrent(f *raceFrame) {
	runtime.RaceDisable()
	raceCur.Store(f)
	runtime.RaceEnable()
}

func raceSecBegin(name string) {
	sec := &raceFrame{name: name, parent: raceCurrent()}
	sec.path = racePath(sec)
	raceSetCurrent(sec)
}

func raceSecEnd(nowait bool) {
	sec := raceCurrent()
	if sec == nil || sec.parent == nil {
		return // unbalanced: a recording reports it
	}
	if !nowait {
		runtime.RaceAcquire(unsafe.Pointer(&sec.parent.sync))
	}
	if sec.tasks > 0 {
		raceWrite([]byte("tasks " + strconv.Itoa(sec.tasks) + "\n"))
	}
	if sec.inline {
		raceWrite([]byte("unchecked " + strconv.Quote(sec.path) + "\n"))
	}
	raceSetCurrent(sec.parent)
}

// raceInline notes a TaskBegin: its task runs inline and is not checked.
func raceInline() {
	if sec := raceCurrent(); sec != nil {
		sec.inline = true
	}
}

// raceTask runs fn as a task named name of the current section on a
// goroutine of its own and waits for it, the wait hidden from the
// detector.
func raceTask(name string, fn func()) {
	sec := raceCurrent()
	if sec == nil || sec.parent == nil {
		fn() // a task outside a section: a recording reports it
		return
	}
	sec.tasks++
	raceSite(sec, name)
	task := &raceFrame{name: name, parent: sec}
	done := make(chan struct{})
	go func() {
		raceSetCurrent(task)
		defer func() {
			// Join the sections this task opened (their tasks released
			// onto its frame), then publish to the section's barrier.
			runtime.RaceAcquire(unsafe.Pointer(&task.sync))
			runtime.RaceReleaseMerge(unsafe.Pointer(&sec.parent.sync))
			runtime.RaceDisable()
			close(done)
		}()
		fn()
	}()
	runtime.RaceDisable()
	<-done
	runtime.RaceEnable()
	raceSetCurrent(sec)
}

// raceSite logs, once per section instance, the program's call of Task
// or Loop that starts a task named name: the race detector names a
// goroutine by the stack that created it, and the log turns that call
// into the section and task.
func raceSite(sec *raceFrame, name string) {
	// The innermost frames past raceSite tell the program's calls
	// apart; the first of them outside this package is the call.
	// (Callers' skip counts are not relied on past raceSite: Task and
	// Loop may be inlined.)
	var key [4]uintptr
	if runtime.Callers(2, key[:]) == 0 || sec.sites[key] {
		return
	}
	var pcs [16]uintptr
	n := runtime.Callers(2, pcs[:])
	if sec.sites == nil {
		sec.sites = map[[4]uintptr]bool{}
	}
	sec.sites[key] = true
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !raceInternal(f.Function) {
			b := []byte("site ")
			b = strconv.AppendQuote(b, f.File)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(f.Line), 10)
			b = append(b, ' ')
			b = strconv.AppendQuote(b, sec.path)
			b = append(b, ' ')
			b = strconv.AppendQuote(b, name)
			raceWrite(append(b, '\n'))
			return
		}
		if !more {
			return
		}
	}
}

// racePath names section sec by the sections around it, outermost
// first ("outer/inner"): its parent is a task (whose parent is its
// section) or the root.
func racePath(sec *raceFrame) string {
	path := sec.name
	for t := sec.parent; t != nil && t.parent != nil; t = t.parent.parent {
		path = t.parent.name + "/" + path
	}
	return path
}

// raceMutex returns lock id's mutex.
func raceMutex(id int) *sync.Mutex {
	runtime.RaceDisable()
	defer runtime.RaceEnable()
	h := uint64(id) * 0x9e3779b97f4a7c15
	start := int(h >> 48) // 16 bits: raceLockSlots
	full := raceLocksClaimed.Load() == raceLockSlots
	for i := 0; i < raceLockSlots; i++ {
		s := &raceLocks[(start+i)%raceLockSlots]
		if !s.claimed.Load() {
			if full {
				break
			}
			s.id.Store(int64(id))
			s.claimed.Store(true)
			raceLocksClaimed.Add(1)
			return &s.mu
		}
		if s.id.Load() == int64(id) {
			return &s.mu
		}
	}
	return &raceLocks[start].mu
}

func raceLockBegin(id int) { raceMutex(id).Lock() }
func raceLockEnd(id int)   { raceMutex(id).Unlock() }

// annotatePkg is this package's import path.
var annotatePkg = reflect.TypeFor[raceFrame]().PkgPath()

// raceInternal reports whether fn is one of the functions between a
// program's call of Task or Loop and raceSite, which raceSite passes
// over.
func raceInternal(fn string) bool {
	rest, ok := strings.CutPrefix(fn, annotatePkg+".")
	if !ok {
		return false
	}
	return strings.HasPrefix(rest, "race") || rest == "Task" || rest == "Loop" || strings.HasPrefix(rest, "Loop.")
}
