package memprobe

import (
	"math"
	"time"

	"github.com/parallel-prophet/prophet/internal/affinity"
	"github.com/parallel-prophet/prophet/internal/bandit"
	"github.com/parallel-prophet/prophet/internal/clock"
)

// A section's first run may be its only one, so it is measured against
// itself: in blocks of its top-level tasks of at least BlockNs, alone and
// beside bandits in turn.

// BlockSample is one block of consecutive tasks of a section's first
// run (see BlockNs): beside bandits, or alone, as a reference for the
// blocks beside it.
type BlockSample struct {
	// Name is the section's name, Index the run's number (0) and Block
	// the block's number within the run (from 0).
	Name  string `json:"name"`
	Index int    `json:"index"`
	Block int    `json:"block"`
	// Bandits and Spin are how bandits streamed during the block
	// (Bandits 0: alone).
	Bandits int `json:"bandits,omitempty"`
	Spin    int `json:"spin,omitempty"`
	// Tasks is the number of the section's tasks that ended in the
	// block, and WallNs its wall time.
	Tasks  int   `json:"tasks"`
	WallNs int64 `json:"wall_ns"`
	// Streamed is what the bandits did meanwhile.
	Streamed Counts `json:"streamed"`
	// Partial is set on a block the run's end cut short of BlockNs:
	// beside bandits, what they did there is mostly their start and is
	// not measured (Correct still counts it).
	Partial bool `json:"partial,omitempty"`
}

// blockRun is the state of a first run measured in blocks.
type blockRun struct {
	cur    BlockSample    // the block under way
	t0     int64          // when it began
	from   int64          // the top-level task ends before it (Holder.TopTaskEnds)
	probed map[Config]int // blocks beside each configuration so far
	turn   int            // configurations taken so far
	any    bool           // some block ran beside bandits
	heldNs int64          // time spent switching bandits and measuring references
	done   bool           // no configuration wants more: the rest runs untimed
}

// TaskEnds is called by the recording beside the probe (h) when ends
// tasks of top-level sections have ended, at the first of each run of a
// top-level section and then at the count it returns (math.MaxInt64:
// not again in this run; Profiler.SetTaskHook). In a first run's blocks
// it looks about eight times a block, and a task that ends a block
// switches the bandits on or off.
func (p *Prober) TaskEnds(h Holder, ends int64) (next int64) {
	b := p.blk
	if b == nil || b.done {
		return math.MaxInt64
	}
	now := clock.Now()
	if el := now - b.t0; el < p.opt.BlockNs {
		// Look again in about an eighth of a block, at the pace so far.
		return ends + max(1, (ends-b.from)*(p.opt.BlockNs/8)/max(el, 1))
	}
	defer p.hold(h)()
	defer func() { b.heldNs += b.t0 - now }()
	wasOn := b.cur.Bandits > 0
	p.endBlock(now, ends, false)
	if wasOn || b.done {
		return ends + 1 // alone after bandits, or nothing more to measure
	}
	c, ok := p.nextBlockConfig()
	if !ok {
		b.done = true
		return math.MaxInt64
	}
	b.cur.Bandits, b.cur.Spin = c.Bandits, c.Spin
	if c.Bandits > 0 {
		cpu, unpin, _ := affinity.Pin()
		unpin()
		p.gang.StartOn(c.Bandits, c.Spin, p.otherCPUs(cpu))
		b.any = true
	}
	b.t0 = clock.Now()
	return ends + 1
}

// endBlock ends the block under way at now, after ends top-level task
// ends (partial: at the run's end): it stops its bandits, keeps it,
// measures references after a block beside bandits, and begins the
// next block, alone.
func (p *Prober) endBlock(now, ends int64, partial bool) {
	b := p.blk
	s := b.cur
	s.WallNs = now - b.t0
	s.Partial = partial && s.WallNs < p.opt.BlockNs
	s.Tasks = int(ends - b.from)
	b.from = ends
	if s.Bandits > 0 {
		s.Streamed = bandit.Total(p.gang.Stop())
	}
	if s.Tasks > 0 {
		p.raw.Blocks = append(p.raw.Blocks, s)
	}
	if s.Bandits > 0 && !s.Partial {
		p.measureRefs(Config{s.Bandits, s.Spin}, min(max(time.Duration(s.WallNs)/2, p.opt.CurveTime/5), p.opt.CurveTime))
	}
	b.cur = BlockSample{Name: s.Name, Index: s.Index, Block: s.Block + 1}
	b.t0 = clock.Now()
	if s.Bandits == 0 && !p.wantsBlocks() {
		b.done = true // the last block beside bandits has its neighbour
	}
}

// wantsBlocks reports whether some configuration wants more blocks of
// the current first run.
func (p *Prober) wantsBlocks() bool {
	for _, c := range p.configs {
		if p.blk.probed[c] < p.opt.MaxBlocks {
			return true
		}
	}
	return false
}

// nextBlockConfig returns the configuration of the next block beside
// bandits (taken in turn from the first full-intensity one), and false
// when none wants more. Bandits that do not have their buffers yet are
// waited for (the program is held meanwhile): a first run may be the
// only one.
func (p *Prober) nextBlockConfig() (Config, bool) {
	if !p.wantsBlocks() {
		return Config{}, false
	}
	for !p.Ready() {
		time.Sleep(100 * time.Microsecond)
	}
	b := p.blk
	for {
		c := p.configs[(b.turn+1)%len(p.configs)]
		b.turn++
		if b.probed[c] < p.opt.MaxBlocks {
			b.probed[c]++
			return c, true
		}
	}
}
