package validate

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/parallel-prophet/prophet/calibrate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/hostload"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// key is one parallel version of a subject: a schedule and a thread
// count.
type key struct {
	s par.Schedule
	t int
}

// replayKey is emulator i's replays of key k.
type replayKey struct {
	i int
	k key
}

// roundSet holds the kept rounds of timed runs of one subject: each
// round's real serial run, one real parallel run per key, and a replay
// per key by each emulator that measures the machine (emulate.Measures).
//
// An emulator that measures the machine as the real runs do takes part
// in their rounds: after each round's real runs it predicts every key
// once, and its prediction is the same statistic over the rounds as the
// real speedup's, from the rounds kept. Replays taken back to back after
// all the real runs would share one stretch of the machine's load, and
// where a sample's runs are bimodal (a lock convoy or not), several of
// them fall into the slow mode together.
type roundSet struct {
	serial, serialCPU []float64
	// line holds each round's cost of a cache line's move (see
	// Row.LineNs; none with one core).
	line []float64
	// lines holds each round's cache-line costs, measured after its
	// parallel runs with Config.LinesNow (none without).
	lines       []lineCost
	par, parCPU map[key][]float64
	replays     map[replayKey][]float64
	// replayErr holds the error of a key an emulator could not
	// predict; it is not asked again.
	replayErr map[replayKey]error
}

// round is one round's times before it is kept.
type round struct {
	serial, serialCPU, line float64
	// migrated is set where lines was measured.
	migrated    bool
	lines       lineCost
	par, parCPU map[key]float64
	replays     map[replayKey]float64
}

// lineCost is what a cache line's move costs the constructs ff charges
// for it, as calibrate.MeasureLineCosts measures them after a round's
// parallel runs: Overheads.LockMigrateNs, ChunkMigrateNs, ChunkServeNs,
// and the chunk move's short end (ChunkMigrateShortNs at
// ChunkShortTaskNs).
type lineCost struct{ lockMig, chunkMig, chunkServe, chunkShort, chunkShortTask float64 }

// lineCostOf returns ov's line costs.
func lineCostOf(ov machine.Overheads) lineCost {
	return lineCost{ov.LockMigrateNs, ov.ChunkMigrateNs, ov.ChunkServeNs, ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs}
}

// set puts c's costs into ov.
func (c lineCost) set(ov *machine.Overheads) {
	ov.LockMigrateNs, ov.ChunkMigrateNs, ov.ChunkServeNs = c.lockMig, c.chunkMig, c.chunkServe
	ov.ChunkMigrateShortNs, ov.ChunkShortTaskNs = c.chunkShort, c.chunkShortTask
}

// keep adds rd to the kept rounds.
func (rs *roundSet) keep(rd round, keys []key) {
	rs.serial = append(rs.serial, rd.serial)
	rs.serialCPU = append(rs.serialCPU, rd.serialCPU)
	if rd.line > 0 {
		rs.line = append(rs.line, rd.line)
	}
	if rd.migrated {
		rs.lines = append(rs.lines, rd.lines)
	}
	for _, k := range keys {
		rs.par[k] = append(rs.par[k], rd.par[k])
		rs.parCPU[k] = append(rs.parCPU[k], rd.parCPU[k])
	}
	for rk, p := range rd.replays {
		rs.replays[rk] = append(rs.replays[rk], p)
	}
}

// lineCosts returns ov with each line cost the median of the rounds'
// (unchanged where no round measured them).
func (rs *roundSet) lineCosts(ov machine.Overheads) machine.Overheads {
	if len(rs.lines) == 0 {
		return ov
	}
	median := func(cost func(lineCost) float64) float64 {
		xs := make([]float64, len(rs.lines))
		for i, c := range rs.lines {
			xs[i] = cost(c)
		}
		return robust.Median(xs)
	}
	short := rs.medianShort()
	lineCost{
		lockMig:    median(func(c lineCost) float64 { return c.lockMig }),
		chunkMig:   median(func(c lineCost) float64 { return c.chunkMig }),
		chunkServe: median(func(c lineCost) float64 { return c.chunkServe }),
		// The short end and its task as a pair, from one round
		// (medianShort).
		chunkShort:     short.chunkShort,
		chunkShortTask: short.chunkShortTask,
	}.set(&ov)
	return ov
}

// medianShort returns the kept round (rs.lines not empty) whose chunk
// move's short end is the median, the upper middle one of an even count
// (a round without one, 0, counts as the lowest).
func (rs *roundSet) medianShort() lineCost {
	cs := slices.Clone(rs.lines)
	slices.SortStableFunc(cs, func(a, b lineCost) int { return cmp.Compare(a.chunkShort, b.chunkShort) })
	return cs[len(cs)/2]
}

// roundCosts returns ov with each kept round's line costs in turn, one
// per round (none where no round measured them).
func (rs *roundSet) roundCosts(ov machine.Overheads) []machine.Overheads {
	if len(rs.lines) != len(rs.serial) {
		return nil
	}
	ovs := make([]machine.Overheads, len(rs.lines))
	for i, c := range rs.lines {
		ovs[i] = ov
		c.set(&ovs[i])
	}
	return ovs
}

// unsettled reports whether a median that counts has not settled
// (robust.Settled): the serial runs', a key's parallel runs', a key's
// speedups' (serial and parallel times can each look settled while
// their rounds' ratios fall in two modes) or a replay's.
func (rs *roundSet) unsettled() bool {
	if !robust.Settled(rs.serial) {
		return true
	}
	for _, xs := range rs.par {
		if !robust.Settled(xs) || !robust.Settled(robust.Ratios(rs.serial, xs)) {
			return true
		}
	}
	for _, xs := range rs.replays {
		if !robust.Settled(xs) {
			return true
		}
	}
	return false
}

// rounds takes rounds of timed runs of sub until cfg.Repeats are kept
// and their medians have settled, or cfg.MaxRepeats are kept. With
// cfg.QuietWait, each round first waits for quiet cores, and a round
// after which the cores are busy is taken again (at most cfg.Repeats
// times in all).
func (m *measurer) rounds(ctx context.Context, sub subject, tr *tree.Tree, keys []key, opt emulate.Options) (*roundSet, error) {
	rs := &roundSet{
		serial: make([]float64, 0, m.cfg.Repeats), serialCPU: make([]float64, 0, m.cfg.Repeats),
		par: make(map[key][]float64, len(keys)), parCPU: make(map[key][]float64, len(keys)),
		replays: map[replayKey][]float64{}, replayErr: map[replayKey]error{},
	}
	maxThreads := slices.Max(m.threads)
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	redo := m.cfg.Repeats // rounds that may be taken again
	m.measured++
	extended := false
	for r := 0; r < m.cfg.Repeats || (r < m.cfg.MaxRepeats && rs.unsettled()); r++ {
		if r == m.cfg.Repeats && !extended {
			extended = true // once: a round taken again comes back here
			m.extended++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// One wait for quiet cores per round of runs.
		m.quiet(ctx, maxThreads)
		meter := hostload.Start()
		rd, err := m.round(ctx, sub, tr, keys, opt, procs, rs.replayErr)
		m.timed.Add(meter.Stop())
		if err != nil {
			return nil, err
		}
		// A round after which the cores are no longer free may have
		// been disturbed too: take it again (a bounded number of
		// times). The check looks at the machine only, never at the
		// times measured.
		if m.cfg.QuietWait > 0 && redo > 0 && !hostload.CoresFree(maxThreads) {
			redo--
			m.retaken++
			r--
			continue
		}
		rs.keep(rd, keys)
	}
	if extended && rs.unsettled() {
		m.unsettled++
	}
	return rs, nil
}

// round takes one round: the serial run on procs threads (sub.plain
// where it has one), the parallel
// run of every key (runtime.GOMAXPROCS set to its thread count), a
// memory probe run where sub is probed (its burden factors, pooled over
// the probe runs so far, then go to the replays), then every measuring
// emulator's replay of every key it predicts (see roundSet), noting in
// replayErr the keys it cannot. With Config.LinesNow it also measures,
// right after the parallel runs, the overheads that follow a cache
// line's move (calibrate.MeasureLineCosts without spawn: a few tens of
// milliseconds), so that ff is charged their medians over the rounds, as
// the real speedups are.
func (m *measurer) round(ctx context.Context, sub subject, tr *tree.Tree, keys []key, opt emulate.Options, procs int, replayErr map[replayKey]error) (round, error) {
	runtime.GOMAXPROCS(procs)
	rd := round{par: make(map[key]float64, len(keys)), parCPU: make(map[key]float64, len(keys)), replays: map[replayKey]float64{}}
	base := sub.serial
	if sub.plain != nil {
		base = sub.plain
	}
	rd.serial, rd.serialCPU = timed(procs, sub.reset, base)
	for _, k := range keys {
		runtime.GOMAXPROCS(k.t)
		rd.par[k], rd.parCPU[k] = timed(k.t, sub.reset, func() { sub.parallel(k.t, k.s) })
		if err := sub.check(); err != nil {
			return rd, fmt.Errorf("parallel run, %s, %d threads: %w", k.s, k.t, err)
		}
	}
	runtime.GOMAXPROCS(procs)
	// The cost of a cache line's move right after the parallel runs,
	// as the machine moved them for those runs: with LinesNow the
	// LockMigrateNs measured for ff, which is that cost, else a
	// shorter measurement of it.
	if m.cfg.LinesNow {
		ov, err := calibrate.MeasureLineCosts(ctx, opt.Overheads, false)
		if err != nil {
			return rd, err
		}
		rd.migrated, rd.lines = true, lineCostOf(ov)
		rd.line = ov.LockMigrateNs
	} else {
		rd.line = calibrate.LineMoveNs()
	}
	if sub.probes != nil {
		if err := m.probe(sub, tr); err != nil {
			return rd, err
		}
		opt.Burden = nil
		if burden, st := memmodel.ForTree(tr, m.cfg.Machine, memmodel.Auto); st.Burdened() {
			opt.Burden = burden
		}
	}
	for i, e := range m.emus {
		if !emulate.Measures(e) {
			continue
		}
		for _, k := range keys {
			rk := replayKey{i, k}
			if replayErr[rk] != nil || !predicts(e, k.t) {
				continue
			}
			res, err := emulate.Predict(e, tr, k.t, k.s, opt)
			if err != nil {
				replayErr[rk] = err
				continue
			}
			rd.replays[rk] = res.ParallelNs
		}
	}
	return rd, nil
}
