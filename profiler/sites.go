package profiler

import (
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// siteSlots is the size of each direct-mapped cache of names whose
// annotation site is known.
const siteSlots = 256

// siteCache remembers, for one kind of region, the string data of names
// whose site is recorded. A name passed at one call site is nearly
// always a literal, whose data is the same at every call, so a known
// call site costs a load and a compare; a name built at run time misses
// the cache and costs a map look-up (its site is taken once).
type siteCache [siteSlots]*byte

// Region kinds for site.
const (
	siteSec = iota
	siteTask
)

// sitePrefix is the region name prefix of each kind.
var sitePrefix = [...]string{siteSec: "sec:", siteTask: "task:"}

// slot is the cache slot of a name's string data.
func slot(ptr *byte) uintptr { return uintptr(unsafe.Pointer(ptr)) >> 4 & (siteSlots - 1) }

// newSecSite and newTaskSite are the slow paths of SecBegin's and
// TaskBegin's site check: a name not in the kind's cache.
//
//go:noinline
func (p *Profiler) newSecSite(name string) { p.newSite(siteSec, name) }

//go:noinline
func (p *Profiler) newTaskSite(name string) { p.newSite(siteTask, name) }

// The slow path's own time (a stack walk, microseconds the first time)
// falls into no interval: newSite restamps the last event's time.

// newSite notes the caller's position for the region of kind k named
// name, taken once per region name.
func (p *Profiler) newSite(k int, name string) {
	ptr := unsafe.StringData(name)
	p.siteCaches[k][slot(ptr)] = ptr
	key := sitePrefix[k] + name
	if _, ok := p.sites[key]; ok {
		return
	}
	if p.sites == nil {
		p.sites = map[string]string{}
	}
	p.sites[key] = callerSite()
	p.last = p.now()
}

// ownPrefixes are the packages whose frames callerSite skips: the
// annotation's site is the first frame outside them.
var ownPrefixes = []string{
	"github.com/parallel-prophet/prophet/annotate.",
	"github.com/parallel-prophet/prophet/profiler.",
}

// callerSite returns the file:line of the first caller outside package
// annotate and the profiler (annotate.Task's and Loop's callers
// included), or "" when there is none.
func callerSite() string {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		own := false
		for _, pre := range ownPrefixes {
			if strings.HasPrefix(f.Function, pre) {
				own = true
				break
			}
		}
		if !own && f.File != "" {
			return f.File + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}
