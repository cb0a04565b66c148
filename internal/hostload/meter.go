package hostload

import (
	"time"

	"github.com/parallel-prophet/prophet/internal/cputime"

	"github.com/parallel-prophet/prophet/internal/affinity"
)

// Meter measures how much of this process's cores other work used over
// an interval: the CPUs' busy time (user, system, interrupts, steal)
// less this process's own CPU time and its children's (those that ended
// and were waited for within the interval: a program prophet runs and
// times is not other work). Start one with Start, read it with
// Stop; Stop may be called more than once, each time over the interval
// since Start.
type Meter struct {
	cpus  []int
	s0    sample
	own0  int64
	wall0 time.Time
	ok    bool
}

// Usage is what a Meter saw over one interval, or over several added
// together (Add). Its OthersCores says what it means.
type Usage struct {
	// Wall is the intervals' length; Cores the number of CPUs this
	// process may run on.
	Wall  time.Duration
	Cores int
	// busy and total are the CPUs' ticks over the intervals, ownNs this
	// process's CPU time; ok is false where the system did not say.
	busy, total uint64
	ownNs       int64
	ok          bool
}

// minTicks is how many of the CPUs' clock ticks (at the kernel's usual
// 100 a second, per CPU) an interval needs before its share of busy
// ticks means anything: a tick lands on one CPU, busy or idle, so a
// handful of ticks reads 0 or a whole core.
const minTicks = 40

// Start starts a Meter.
func Start() *Meter {
	m := &Meter{cpus: affinity.CPUs(), wall0: time.Now()}
	var ok1, ok2 bool
	m.s0, ok1 = readSample(m.cpus)
	m.own0, ok2 = ownCPU()
	m.ok = ok1 && ok2
	return m
}

// ownCPU is the CPU time of this process and of its children that have
// ended.
func ownCPU() (int64, bool) {
	p, ok := cputime.Process()
	c, okc := cputime.Children()
	if !okc {
		c = 0
	}
	return p + c, ok
}

// Stop returns the usage since Start.
func (m *Meter) Stop() Usage {
	u := Usage{Wall: time.Since(m.wall0), Cores: len(m.cpus)}
	if !m.ok {
		return u
	}
	s1, ok1 := readSample(m.cpus)
	own1, ok2 := ownCPU()
	if !ok1 || !ok2 || s1.total < m.s0.total || s1.busy < m.s0.busy {
		return u
	}
	u.Cores = s1.cpus
	u.busy, u.total, u.ownNs, u.ok = s1.busy-m.s0.busy, s1.total-m.s0.total, own1-m.own0, true
	return u
}

// Add adds v's interval to u's. The sum is known only where both were
// (the zero Usage counts as known and empty).
func (u *Usage) Add(v Usage) {
	known := (u.ok || u.Wall == 0) && v.ok
	u.Wall += v.Wall
	u.Cores = max(u.Cores, v.Cores)
	u.busy += v.busy
	u.total += v.total
	u.ownNs += v.ownNs
	u.ok = known
}

// OthersCores returns how many of this process's cores other work kept
// busy on average (0 to Cores; a core's worth of another program
// spinning reads about 1): the busy share of the CPUs' ticks times the
// CPUs, less this process's own cores, never below zero. ok is false
// where the system did not say (no /proc/stat or no process CPU clock)
// or the intervals were too short to tell (fewer than minTicks ticks).
func (u Usage) OthersCores() (cores float64, ok bool) {
	if !u.ok || u.total < minTicks || u.Wall <= 0 || u.Cores <= 0 {
		return 0, false
	}
	busyCores := float64(u.busy) / float64(u.total) * float64(u.Cores)
	own := float64(u.ownNs) / float64(u.Wall)
	return max(busyCores-own, 0), true
}
