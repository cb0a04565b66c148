package hostload

import (
	"time"

	"github.com/parallel-prophet/prophet/internal/cputime"
)

// Meter measures how much of this process's cores other work used over
// an interval: the CPUs' busy time (user, system, interrupts, steal)
// less this process's own CPU time. Start one with Start, read it with
// Stop; Stop may be called more than once, each time over the interval
// since Start.
type Meter struct {
	cpus  []int
	s0    sample
	own0  int64
	wall0 time.Time
	ok    bool
}

// Usage is what a Meter saw.
type Usage struct {
	// OthersCores is how many of this process's cores other work kept
	// busy on average (0 to Cores; a core's worth of another program
	// spinning reads about 1).
	OthersCores float64
	// Cores is the number of CPUs this process may run on; Wall the
	// interval's length.
	Cores int
	Wall  time.Duration
	// OK is false where the system does not say (no /proc/stat or no
	// process CPU clock): then OthersCores is 0 and means nothing.
	OK bool
}

// Start starts a Meter.
func Start() *Meter {
	m := &Meter{cpus: ourCPUs(), wall0: time.Now()}
	var ok1, ok2 bool
	m.s0, ok1 = readSample(m.cpus)
	m.own0, ok2 = cputime.Process()
	m.ok = ok1 && ok2
	return m
}

// Stop returns the usage since Start.
func (m *Meter) Stop() Usage {
	wall := time.Since(m.wall0)
	u := Usage{Wall: wall, Cores: len(m.cpus)}
	if !m.ok {
		return u
	}
	s1, ok1 := readSample(m.cpus)
	own1, ok2 := cputime.Process()
	if !ok1 || !ok2 {
		return u
	}
	u.Cores = s1.cpus
	u.OthersCores, u.OK = othersCores(m.s0, s1, own1-m.own0, wall)
	return u
}

// othersCores turns two samples of the CPUs' ticks and this process's
// CPU time between them (ownNs over wall) into the cores other work
// kept busy: the busy share of the ticks times the CPUs, less this
// process's cores, never below zero.
func othersCores(s0, s1 sample, ownNs int64, wall time.Duration) (float64, bool) {
	if s1.total <= s0.total || wall <= 0 || s1.busy < s0.busy {
		return 0, false
	}
	busyCores := float64(s1.busy-s0.busy) / float64(s1.total-s0.total) * float64(s1.cpus)
	own := float64(ownNs) / float64(wall)
	return max(busyCores-own, 0), true
}
