package validate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/internal/robust"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// roundRange returns the lowest and highest of the rounds' speedups,
// ser[i] / par[i] (zeros for no rounds).
func roundRange(ser, par []float64) (low, high float64) {
	rs := robust.Ratios(ser, par)
	if len(rs) == 0 {
		return 0, 0
	}
	return slices.Min(rs), slices.Max(rs)
}

// cpuRatio returns the median of the rounds' ratios of parallel to
// serial CPU time, or 0 when a round has none.
func cpuRatio(par, ser []float64) float64 {
	rs := make([]float64, 0, len(par))
	for i := range par {
		if par[i] < 0 || !(ser[i] > 0) {
			return 0
		}
		rs = append(rs, par[i]/ser[i])
	}
	if len(rs) == 0 {
		return 0
	}
	return robust.Median(rs)
}

// superlinearNote says why a real speedup above the thread count gets
// no prediction near it, or "" when it is within noise of the count
// (superlinearSlack). The emulators replay the serial run's task
// lengths, so no schedule of them beats t-fold. Where the parallel run
// also used less CPU time than the serial one (cpuInfl below
// 1 − superlinearSlack), it did less work: tasks running at once can
// load each other's input lines into the shared cache, which one after
// the other they do not. Where it did not
// (or the CPU time is unknown), the serial runs' wall time, not their
// work, was long: other load on the cores.
func superlinearNote(sub subject, s par.Schedule, t int, real, cpuInfl float64) string {
	if real <= float64(t)*(1+superlinearSlack) {
		return ""
	}
	name := sub.sample
	if sub.test != Examples {
		name = sub.test + " sample " + sub.sample
	}
	head := fmt.Sprintf("%s, %s: the real speedup %.2f on %d threads is superlinear", name, s, real, t)
	if cpuInfl > 0 && cpuInfl < 1-superlinearSlack {
		return fmt.Sprintf("%s: the parallel run did less work (its CPU time was %.2f of the serial run's), from caches its threads share or together hold; the emulators replay the serial run's task lengths and cannot predict more than %d-fold", head, cpuInfl, t)
	}
	cpu := "its CPU time is unknown"
	if cpuInfl > 0 {
		cpu = fmt.Sprintf("its CPU time was %.2f of the serial run's", cpuInfl)
	}
	return fmt.Sprintf("%s, yet the parallel run did no less work (%s): other load on the cores likely slowed the serial runs", head, cpu)
}

// superlinearSlack is the relative margin above the thread count (and
// below a CPU-time ratio of 1) that superlinearNote takes for noise.
const superlinearSlack = 0.03

// slowerNote says why a prediction came out well above the real
// speedup where the real parallel runs took more CPU time than the
// emulated threads did: cpuInfl over cpu (Row.CPUInflation over
// Row.PredictedCPU) at least slowerRatio and pred at least slowerError
// above real. The tasks then ran slower side by side than the recording
// and the memory model say, which no schedule of the recorded lengths
// shows. It returns "" otherwise, and for a sample with a short lock
// (shortLock), whose gap is the lock's cost, which the short-lock
// summary covers.
func slowerNote(sub subject, emu string, s par.Schedule, t int, pred, real, cpuInfl, cpu float64, shortLock bool) string {
	if shortLock || !(cpu > 0) || !(cpuInfl >= cpu*slowerRatio) || !(pred >= real*(1+slowerError)) {
		return ""
	}
	name := sub.sample
	if sub.test != Examples {
		name = sub.test + " sample " + sub.sample
	}
	return fmt.Sprintf("%s, %s on %d threads: the real parallel runs took %.2f times the serial run's CPU time, %s's threads %.2f times, and %s's %.2f is %.0f%% above the real %.2f: "+
		"the tasks ran slower side by side than the recording and the memory model say (data written on one core and read on the other between sections, "+
		"memory traffic the memory model did not see, or the machine slowing both cores at once), which no schedule of the recorded lengths shows",
		name, s, t, cpuInfl, emu, cpu, emu, pred, 100*(pred/real-1), real)
}

// slowerRatio and slowerError are slowerNote's thresholds: the real
// runs' CPU time over the prediction's, and the prediction over the real
// speedup.
const (
	slowerRatio = 1.10
	slowerError = 0.10
)

// predicts reports whether emulator e predicts t threads on this
// machine (the synthesizer only up to its cores).
func predicts(e emulate.SectionEmulator, t int) bool {
	l, ok := e.(emulate.Limited)
	return !ok || l.MaxThreads() <= 0 || t <= l.MaxThreads()
}

// rows returns a row for each emulator's prediction of each key of sub
// against the real speedup of the kept rounds rs: from tr, or, for an
// emulator that measures the machine, from its replays in the rounds.
func (m *measurer) rows(sub subject, tr *tree.Tree, keys []key, rs *roundSet, opt emulate.Options) ([]Row, error) {
	stat := robust.Median
	if m.cfg.Fastest {
		stat = slices.Min[[]float64]
	}
	serialMed := stat(rs.serial)
	recorded := float64(tree.Work(tr.Root))
	lineNs := 0.0
	if len(rs.line) > 0 {
		lineNs = robust.Median(rs.line)
	}
	shortLock := false
	if a, err := analyze.Analyze(tr, analyze.Options{Overheads: opt.Overheads, Threads: []int{1}}); err == nil {
		shortLock = len(a.ShortLocks) > 0
	}
	var rows []Row
	for _, k := range keys {
		beta, source := 1.0, ""
		if opt.Burden != nil {
			beta, source = memmodel.WorkBeta(tr, m.cfg.Machine, k.t)
		}
		pm := stat(rs.par[k])
		real := serialMed / pm
		cpuInfl := cpuRatio(rs.parCPU[k], rs.serialCPU)
		low, high := roundRange(rs.serial, rs.par[k])
		if note := superlinearNote(sub, k.s, k.t, real, cpuInfl); note != "" {
			m.note("superlinear/"+sub.test+"/"+sub.sample+"/"+k.s.String()+"/"+strconv.Itoa(k.t), note)
		}
		for i, e := range m.emus {
			if !predicts(e, k.t) {
				m.note(e.Name()+"/"+strconv.Itoa(k.t), fmt.Sprintf("%s predicts up to %d threads on this machine; no %s rows for %d threads", e.Name(), e.(emulate.Limited).MaxThreads(), e.Name(), k.t))
				continue
			}
			var res emulate.Result
			var cpu float64
			var err error
			if emulate.Measures(e) {
				rk := replayKey{i, k}
				if err = rs.replayErr[rk]; err == nil {
					res.Speedup = recorded / stat(rs.replays[rk])
				}
			} else {
				res, cpu, err = m.predict(e, tr, k, rs, opt, stat)
			}
			if errors.Is(err, emulate.ErrTooManyThreads) {
				m.note(e.Name()+"/"+strconv.Itoa(k.t), fmt.Sprintf("%s cannot predict %d threads on this machine: %v", e.Name(), k.t, err))
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("predicting with %s, %s, %d threads: %w", e.Name(), k.s, k.t, err)
			}
			if note := slowerNote(sub, e.Name(), k.s, k.t, res.Speedup, real, cpuInfl, cpu, shortLock); note != "" && !m.noSlower {
				m.note("slower/"+e.Name()+"/"+sub.test+"/"+sub.sample+"/"+k.s.String()+"/"+strconv.Itoa(k.t), note)
			}
			rows = append(rows, Row{
				Test: sub.test, Sample: sub.sample, Seed: sub.seed, Desc: sub.desc,
				Emulator: e.Name(), Schedule: k.s.String(), Threads: k.t,
				Predicted: res.Speedup, Real: real, Error: math.Abs(res.Speedup-real) / real,
				SerialNs: serialMed, ParallelNs: pm, RecordedNs: recorded, Spread: robust.Spread(rs.par[k]), Rounds: len(rs.serial),
				RealLow: low, RealHigh: high,
				CPUInflation: cpuInfl, PredictedCPU: cpu, Beta: beta, BetaSource: source,
				LineNs: lineNs, ShortLock: shortLock,
			})
		}
	}
	return rows, nil
}

// predict returns the prediction of emulator e (one that does not
// measure the machine) for key k of tr, and its CPU inflation
// (predictedCPU). Where the rounds rs measured the cache-line costs
// (Config.LinesNow), it predicts once per round with that round's costs
// and returns the statistic stat over those predicted times, the
// statistic the real speedup takes over the rounds' times, and the
// median of their CPU inflations, as the real runs' is (cpuRatio): a
// loop whose speedup follows a line cost closely compares against runs
// that met the costs it was predicted with. A median taken of each cost
// apart can pair the lock's cost of one round with the fetch's of
// another, and on a machine whose line moves switch between two speeds,
// the two come from different speeds.
func (m *measurer) predict(e emulate.SectionEmulator, tr *tree.Tree, k key, rs *roundSet, opt emulate.Options, stat func([]float64) float64) (emulate.Result, float64, error) {
	ovs := rs.roundCosts(opt.Overheads)
	if len(ovs) == 0 {
		res, err := emulate.Predict(e, tr, k.t, k.s, opt)
		return res, predictedCPU(res), err
	}
	// Every prediction is of the same serial time, so each predicted
	// time is that time over the speedup: the statistic of 1/speedup.
	var res emulate.Result
	times := make([]float64, 0, len(ovs))
	cpus := make([]float64, 0, len(ovs))
	for _, ov := range ovs {
		o := opt
		o.Overheads = ov
		r, err := emulate.Predict(e, tr, k.t, k.s, o)
		if err != nil {
			return r, 0, err
		}
		res = r
		times = append(times, 1/r.Speedup)
		cpus = append(cpus, predictedCPU(r))
	}
	res.Speedup = 1 / stat(times)
	return res, robust.Median(cpus), nil
}

// predictedCPU returns the CPU inflation of prediction res (see
// Row.PredictedCPU): its sections' busy time, with one thread busy in
// the serial code between them, over its serial time; 0 where a section
// reports no busy time (an emulator that does not count it).
func predictedCPU(res emulate.Result) float64 {
	if res.SerialNs <= 0 || len(res.Sections) == 0 {
		return 0
	}
	var busy, secs float64
	for _, s := range res.Sections {
		if s.BusyNs <= 0 {
			return 0
		}
		busy += s.BusyNs
		secs += s.ParallelNs
	}
	return (busy + max(res.ParallelNs-secs, 0)) / res.SerialNs
}
