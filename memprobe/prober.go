package memprobe

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/parallel-prophet/prophet/internal/affinity"
	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/internal/clock"
	"github.com/parallel-prophet/prophet/internal/sysinfo"
	"github.com/parallel-prophet/prophet/tree"
)

// Defaults of Options.
const (
	// MaxProbed is how many runs of one section name are measured beside
	// each bandit count, at most.
	MaxProbed = 8
	// MinRunNs: a run is measured beside bandits only when the run of
	// the same section before it lasted at least this long, so that
	// starting and stopping the bandits (tens of microseconds) stays
	// small beside it.
	MinRunNs = 200_000
	// CurveTime is how long, at most, each reference measurement of the
	// bandwidth curve streams (after each run or block beside bandits,
	// as long as that run took, at least a fifth of this).
	CurveTime = 4 * time.Millisecond
	// BlockNs is how long a block of a section's first run lasts at
	// least: the first run of each section name alternates blocks of its
	// tasks alone and beside bandits, switching at the first task end
	// after this long.
	BlockNs = 1_000_000
	// MaxBlocks is how many blocks of a first run are measured beside
	// each configuration, at most.
	MaxBlocks = 4 * MaxProbed
)

// Options tune a Prober. The zero value probes with the defaults.
type Options struct {
	// BufferBytes is each bandit's buffer (default twice the last-level
	// cache the system reports, at least 32 MiB and at most 256 MiB, so
	// that a bandit's lines are gone from the cache when it comes back
	// to them).
	BufferBytes int64
	// LineSize is the cache line size (default 64).
	LineSize int
	// CurveTime bounds each reference measurement (default CurveTime).
	CurveTime time.Duration
	// Wait makes Start wait until the bandits have their buffers; without
	// it they make them while the program starts, and the runs before
	// they are ready run alone.
	Wait bool
	// MaxProbed, MinRunNs, BlockNs and MaxBlocks override the defaults
	// when positive.
	MaxProbed int
	MinRunNs  int64
	BlockNs   int64
	MaxBlocks int
}

// Holder is what a Prober holds while it starts and stops bandits or
// measures references, so that its own time falls out of a recording
// made in the same run (a *profiler.Profiler); nil where nothing
// records.
type Holder interface {
	Hold()
	Release()
	// TopTaskEnds returns how many tasks of top-level sections have
	// ended so far.
	TopTaskEnds() int64
}

// Counts is what bandits did while they streamed: the cache lines they
// loaded, their CPU time and their wall time (summed over bandits where
// several streamed).
type Counts = bandit.Counts

// Config is one way bandits run beside a section: Bandits of them, each
// with Spin rounds of register-only work per line it loads (0: as fast as
// memory allows; more: less traffic).
type Config struct {
	Bandits int `json:"bandits"`
	Spin    int `json:"spin,omitempty"`
}

// LowSpin is the spin of the low-intensity configuration: about a
// quarter of a full bandit's traffic. Beside it a section shows how its
// slowdown grows at low loads, where a latency-bound loop's is far below
// the line from no bandit to a full one.
const LowSpin = 8

// Configs returns the configurations run beside sections on a machine
// with cores usable CPUs: one bandit at low intensity, then t−1 full
// bandits for t = 2, 4, 8, ... below cores, and cores−1 (BanditCounts).
func Configs(cores int) []Config {
	counts := BanditCounts(cores)
	if len(counts) == 0 {
		return nil
	}
	cs := []Config{{Bandits: 1, Spin: LowSpin}}
	for _, j := range counts {
		cs = append(cs, Config{Bandits: j})
	}
	return cs
}

// RunSample is one run of a top-level section, as the probe timed it.
type RunSample struct {
	// Name is the section's name and Index the run's number among the
	// runs of that name (from 0).
	Name  string `json:"name"`
	Index int    `json:"index"`
	// Bandits is the number of bandits that streamed during the run
	// (0: it ran alone), with Spin rounds per line.
	Bandits int `json:"bandits,omitempty"`
	Spin    int `json:"spin,omitempty"`
	// WallNs is the run's wall time.
	WallNs int64 `json:"wall_ns"`
	// Blocked is set on a first run measured in blocks (Raw.Blocks),
	// some beside bandits: it did not run alone.
	Blocked bool `json:"blocked,omitempty"`
	// Streamed is what the bandits did meanwhile, summed over them:
	// their wall time over Bandits is how long they streamed (all of
	// the run, or its first part).
	Streamed Counts `json:"streamed"`
}

// Raw is everything a probe's run measured, for Analyze.
type Raw struct {
	// Cores is the number of CPUs the probe could use; LineSize the
	// cache line size its traffic is counted in.
	Cores    int `json:"cores"`
	LineSize int `json:"line_size"`
	// Curve is the bandwidth curve (each of n bandits' traffic alone),
	// pooled from Refs.
	Curve []tree.ProbeStreams `json:"curve,omitempty"`
	// Refs are the reference measurements behind Curve: after each run
	// beside j bandits, j and then j+1 bandits alone (the program
	// waiting), so that the curve is measured when the machine is as
	// it was for the run.
	Refs []RefSample `json:"refs,omitempty"`
	// Runs are the runs timed, in program order.
	Runs []RunSample `json:"runs,omitempty"`
	// Blocks are the blocks of first runs, in program order.
	Blocks []BlockSample `json:"blocks,omitempty"`
	// Note says why the probe measured less than planned, or nothing.
	Note string `json:"note,omitempty"`
	// HeldNs is how long the probe kept the program waiting on its own
	// work: starting and stopping bandits and measuring references.
	HeldNs int64 `json:"held_ns,omitempty"`
	// SetupNs is how long Start waited for the bandits' buffers
	// (Options.Wait), before the program started.
	SetupNs int64 `json:"setup_ns,omitempty"`
	// Starved counts the reference measurements left out of Refs
	// because their bandits starved (nil: none), for Analyze to say
	// once over all the runs it pools.
	Starved *StarvedRefs `json:"starved_refs,omitempty"`
}

// StarvedRefs counts reference measurements whose bandits got less than
// MinBanditShare of a core, with the lowest and highest share they got.
type StarvedRefs struct {
	N  int     `json:"n"`
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// RefSample is one reference measurement: Streams bandits alone, with
// Spin rounds per line.
type RefSample struct {
	Streams  int    `json:"streams"`
	Spin     int    `json:"spin,omitempty"`
	Streamed Counts `json:"streamed"`
}

// Prober runs bandits beside a serial program's top-level sections.
// SecBegin and SecEnd are called by package annotate, from the goroutine
// that runs the sections, around every section (nested ones too, which
// it ignores), and TaskEnds by the recording beside it (blocks.go).
type Prober struct {
	opt     Options
	gang    *bandit.Gang
	lastRef map[Config]int64 // when the references for a configuration were last measured
	cpus    []int            // usable CPUs
	configs []Config         // the configurations measured beside sections
	raw     Raw
	notes   []string
	depth   int
	seen    map[string]int // runs of each name so far
	state   map[string]*nameState
	lastNs  map[string]int64
	cur     RunSample
	t0      int64
	unpin   func()
	measure bool        // the current run is kept
	blk     *blockRun   // the current first run's blocks; nil outside one
	isReady func() bool // for tests: whether the bandits are ready (default: the gang's)

	// starved counts the reference measurements whose bandits starved
	// (Raw.Starved).
	starved StarvedRefs
}

// BanditCounts returns the numbers of bandits run beside sections on a
// machine with cores usable CPUs: t−1 for t = 2, 4, 8, 16, ... below
// cores, and cores−1.
func BanditCounts(cores int) []int {
	var js []int
	for t := 2; t < cores; t *= 2 {
		js = append(js, t-1)
	}
	if cores >= 2 {
		js = append(js, cores-1)
	}
	return js
}

// Start measures the bandwidth curve and parks the bandits. Where the
// machine cannot be probed (fewer than two usable cores), it returns a
// Prober that measures nothing and whose Raw says why.
func Start(opt Options) *Prober {
	if opt.LineSize <= 0 {
		opt.LineSize = 64
	}
	if opt.CurveTime <= 0 {
		opt.CurveTime = CurveTime
	}
	if opt.MaxProbed <= 0 {
		opt.MaxProbed = MaxProbed
	}
	if opt.MinRunNs <= 0 {
		opt.MinRunNs = MinRunNs
	}
	if opt.BlockNs <= 0 {
		opt.BlockNs = BlockNs
	}
	if opt.MaxBlocks <= 0 {
		opt.MaxBlocks = MaxBlocks
	}
	if opt.BufferBytes <= 0 {
		opt.BufferBytes = min(max(2*sysinfo.Read().LLCBytes, 32<<20), 256<<20)
	}
	p := &Prober{opt: opt, seen: map[string]int{}, state: map[string]*nameState{}, lastRef: map[Config]int64{}, lastNs: map[string]int64{}}
	p.raw.LineSize = opt.LineSize
	cpus, limit, _ := usableCPUs()
	p.cpus = cpus
	p.raw.Cores = limit
	if limit < 2 {
		p.raw.Note = NoCoresNote()
		return p
	}
	p.configs = Configs(limit)
	// The bandits touch their buffers on their own threads while the
	// program starts; runs before they are ready run alone. The last
	// streams only in the references of cores−1 bandits and one more,
	// beside the first, whose buffer it shares.
	t0 := clock.Now()
	p.gang = bandit.NewLazyGang(limit, opt.BufferBytes, bandit.Options{LineSize: opt.LineSize, LastShares: true})
	if opt.Wait {
		for !p.gang.Ready() {
			time.Sleep(100 * time.Microsecond)
		}
		p.raw.SetupNs = clock.Now() - t0
	}
	return p
}

// RefEvery is how long references for one configuration stay current:
// after a run beside it, its bandits alone are measured again only when
// the last such references are older.
const RefEvery = time.Second

// measureRefs measures the bandwidth curve beside configuration c, for
// about d each, and keeps it as references, where the last ones for c
// are older than RefEvery: c's bandits alone on CPUs other than the
// program's, then, at full intensity, one more on the program's CPU too
// (the program waits meanwhile; the bandits stop by themselves, so the
// program needs no processor to stop them).
func (p *Prober) measureRefs(c Config, d time.Duration) {
	now := clock.Now()
	if last, ok := p.lastRef[c]; ok && now-last < RefEvery.Nanoseconds() {
		return
	}
	p.lastRef[c] = now
	cpu, unpin, _ := affinity.Pin()
	others := p.otherCPUs(cpu)
	unpin()
	refs := []RefSample{{Streams: c.Bandits, Spin: c.Spin, Streamed: bandit.Total(p.gang.StreamFor(c.Bandits, c.Spin, others, d))}}
	if c.Spin == 0 {
		more := bandit.Total(p.gang.StreamFor(c.Bandits+1, 0, append(others[:c.Bandits:c.Bandits], cpu), d))
		refs = append(refs, RefSample{Streams: c.Bandits + 1, Streamed: more})
	}
	for _, r := range refs {
		if sh := r.Streamed.Share(); sh < MinBanditShare {
			p.starved.add(StarvedRefs{N: 1, Lo: sh, Hi: sh})
			continue
		}
		p.raw.Refs = append(p.raw.Refs, r)
	}
}

// add pools o into s.
func (s *StarvedRefs) add(o StarvedRefs) {
	if o.N <= 0 {
		return
	}
	if s.N == 0 || o.Lo < s.Lo {
		s.Lo = o.Lo
	}
	s.Hi = max(s.Hi, o.Hi)
	s.N += o.N
}

// note says that the bandits of s.N reference measurements starved,
// getting s.Lo to s.Hi of a core each, so that those were not used.
func (s StarvedRefs) note() string {
	if s.N == 1 {
		return fmt.Sprintf("bandits starved while measuring the bandwidth curve (%.0f%% of a core each): those references are not used", 100*s.Lo)
	}
	share := fmt.Sprintf("%.0f%%", 100*s.Lo)
	if hi := fmt.Sprintf("%.0f%%", 100*s.Hi); hi != share {
		share = fmt.Sprintf("%.0f-%s", 100*s.Lo, hi)
	}
	return fmt.Sprintf("bandits starved in %d measurements of the bandwidth curve (%s of a core each): those references are not used", s.N, share)
}

// otherCPUs returns the usable CPUs other than cpu.
func (p *Prober) otherCPUs(cpu int) []int {
	others := make([]int, 0, len(p.cpus))
	for _, c := range p.cpus {
		if c != cpu {
			others = append(others, c)
		}
	}
	return others
}

func (p *Prober) note(s string) {
	if !slices.Contains(p.notes, s) {
		p.notes = append(p.notes, s)
	}
}

// SecBegin is called at every SecBegin of the program, before a
// recording in the same run sees it (h, which is held while the bandits
// start; nil where nothing records).
func (p *Prober) SecBegin(name string, h Holder) {
	p.depth++
	if p.depth != 1 || p.gang == nil {
		return
	}
	idx := p.seen[name]
	p.seen[name] = idx + 1
	c, timed := p.plan(name, idx)
	if timed && runtime.GOMAXPROCS(0) < p.raw.Cores {
		// Bandits are goroutines: with fewer Ps than at Start, one
		// would take the program's.
		p.note(fmt.Sprintf("the program lowered GOMAXPROCS to %d: no runs beside bandits after that", runtime.GOMAXPROCS(0)))
		timed = false
	}
	p.measure = timed
	if !timed {
		return
	}
	defer p.hold(h)()
	cpu, unpin, _ := affinity.Pin()
	p.unpin = unpin
	p.cur = RunSample{Name: name, Index: idx, Bandits: c.Bandits, Spin: c.Spin}
	if idx == 0 && h != nil {
		// A first run: nobody knows yet whether it is the only one, so
		// it is measured against itself, in blocks of its tasks (which
		// the recording counts).
		p.blk = &blockRun{cur: BlockSample{Name: name}, probed: map[Config]int{}, from: h.TopTaskEnds()}
	} else if c.Bandits > 0 {
		p.gang.StartOn(c.Bandits, c.Spin, p.otherCPUs(cpu))
	}
	p.t0 = clock.Now()
	if p.blk != nil {
		p.blk.t0 = p.t0
	}
}

// SecEnd is called at every SecEnd of the program, after a recording in
// the same run sees it (h, held while the bandits stop and the
// references are measured).
func (p *Prober) SecEnd(h Holder) {
	p.depth--
	if p.depth != 0 || p.gang == nil || !p.measure {
		if p.depth < 0 {
			p.depth = 0
		}
		return
	}
	now := clock.Now()
	defer p.hold(h)()
	p.cur.WallNs = now - p.t0
	if b := p.blk; b != nil {
		p.cur.WallNs -= b.heldNs
		if !b.done {
			p.endBlock(now, h.TopTaskEnds(), true)
		}
		p.cur.Blocked = b.any
		p.blk = nil
	} else if p.cur.Bandits > 0 {
		p.cur.Streamed = bandit.Total(p.gang.Stop())
	}
	p.unpin()
	p.measure = false
	p.lastNs[p.cur.Name] = p.cur.WallNs
	p.raw.Runs = append(p.raw.Runs, p.cur)
	if p.cur.Bandits > 0 {
		p.measureRefs(Config{p.cur.Bandits, p.cur.Spin}, min(max(time.Duration(p.cur.WallNs)/2, p.opt.CurveTime/5), p.opt.CurveTime))
	}
}

// hold holds h while the probe works on the program's thread, until
// the function it returns is called.
func (p *Prober) hold(h Holder) func() {
	if h != nil {
		h.Hold()
	}
	t0 := clock.Now()
	return func() {
		p.raw.HeldNs += clock.Now() - t0
		if h != nil {
			h.Release()
		}
	}
}

// plan returns how bandits run beside run idx of name (Bandits 0: the
// run is timed alone, as a reference for its neighbours), and whether
// the run is timed at all.
//
// The first run (idx 0) is timed, and SecBegin measures it in blocks
// (BlockNs). Of the later runs, one in four (idx ≡ 1 mod 4) runs beside
// bandits, the configurations taken in turn from the first full-intensity
// one (a section run only five to eight times is measured beside it,
// which gives its share), and its neighbours alone. A run that follows a
// run shorter than MinRunNs runs alone; one that comes before the
// bandits are ready runs alone and passes its turn to the next run (a
// section run only a few times would otherwise never be measured). A
// configuration stops once it has MaxProbed runs, and a name stops being
// timed after 16·MaxProbed runs per configuration (its runs were too
// short).
func (p *Prober) plan(name string, idx int) (c Config, timed bool) {
	st := p.state[name]
	if st == nil {
		st = &nameState{probed: map[Config]int{}, lastProbed: -2, passed: -2}
		p.state[name] = st
	}
	// active: some configuration still wants runs, and the name's runs
	// have not been timed too often.
	active := false
	if st.timed < 16*p.opt.MaxProbed*len(p.configs) {
		for _, c := range p.configs {
			active = active || st.probed[c] < p.opt.MaxProbed
		}
	}
	switch {
	case idx == st.lastProbed+1:
		timed = true // the probed run's second neighbour
	case !active:
	case idx%4 == 0:
		timed = true
	case idx%4 == 1 || idx == st.passed+1:
		timed = true
		last, ok := p.lastNs[name]
		cc := p.configs[(idx/4+1)%len(p.configs)]
		switch {
		case !ok || last < p.opt.MinRunNs:
		case !p.Ready():
			st.passed = idx
		case st.probed[cc] < p.opt.MaxProbed:
			c = cc
			st.probed[cc]++
			st.lastProbed = idx
		}
	}
	if timed {
		st.timed++
	}
	return c, timed
}

// Ready reports whether the bandits have their buffers (true where the
// machine cannot be probed: nothing waits for them there).
func (p *Prober) Ready() bool {
	if p.isReady != nil {
		return p.isReady()
	}
	return p.gang == nil || p.gang.Ready()
}

// nameState is what plan remembers of one section name.
type nameState struct {
	probed     map[Config]int // runs measured beside each configuration
	lastProbed int            // the last run measured beside bandits
	passed     int            // the last run that passed its turn (bandits not ready)
	timed      int            // runs timed
}

// Stop releases the bandits and returns what the probe measured, the
// curve pooled from the reference measurements.
func (p *Prober) Stop() Raw {
	if p.gang != nil {
		p.gang.Close()
		p.gang = nil
	}
	p.raw.Curve = PoolRefs(p.raw.Refs, p.opt.LineSize)
	if p.starved.N > 0 {
		st := p.starved
		p.raw.Starved = &st
	}
	if len(p.notes) > 0 {
		p.raw.Note = strings.Join(append(nonEmpty(p.raw.Note), p.notes...), "; ")
	}
	return p.raw
}

// PoolRefs pools reference measurements at full intensity (Spin 0) into
// the bandwidth curve: for each stream count, the bandits' lines over
// their CPU time.
func PoolRefs(refs []RefSample, lineSize int) []tree.ProbeStreams {
	by := map[int]bandit.Counts{}
	for _, r := range refs {
		if r.Spin != 0 {
			continue
		}
		c := by[r.Streams]
		c.Lines += r.Streamed.Lines
		c.BusyNs += r.Streamed.BusyNs
		c.WallNs += r.Streamed.WallNs
		by[r.Streams] = c
	}
	var curve []tree.ProbeStreams
	for _, n := range slices.Sorted(maps.Keys(by)) {
		if mbs := by[n].MBs(lineSize); mbs > 0 {
			curve = append(curve, tree.ProbeStreams{Streams: n, MBs: mbs})
		}
	}
	return curve
}
