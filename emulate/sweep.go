package emulate

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Limited is implemented by emulators that can only predict up to some
// thread count (the synthesizer: the cores of this machine). Asked for
// more, their Section returns an error that matches ErrTooManyThreads.
type Limited interface {
	MaxThreads() int
}

// ErrTooManyThreads matches (errors.Is) the error a Limited emulator
// returns when asked for more threads than it can predict on this
// machine. Callers fall back to another emulator for those rows.
var ErrTooManyThreads = errors.New("more threads than this machine has cores")

// Measurer is implemented by emulators whose predictions are timings
// taken on this machine (the synthesizer replays the program with real
// goroutines): a caller that also times real runs, as validation does,
// should interleave the emulator's predictions with them, so that both
// meet the same stretches of the machine's load.
type Measurer interface {
	Measures() bool
}

// Measures reports whether e's predictions are timings taken on this
// machine (see Measurer).
func Measures(e SectionEmulator) bool {
	m, ok := e.(Measurer)
	return ok && m.Measures()
}

// Cloner is implemented by emulators whose predictions do not depend on
// the machine they run on (ff), so that several copies may predict at
// once. Clone returns an emulator that gives the same predictions and is
// safe to use concurrently with the original and with other clones, or
// nil when it cannot make one (then RunSweep runs the emulator's rows one
// after the other).
type Cloner interface {
	Clone() SectionEmulator
}

// RowError is the error of one prediction of a sweep: which emulator,
// schedule and thread count failed, and why.
type RowError struct {
	Emulator string
	Schedule par.Schedule
	Threads  int
	Err      error
}

// Error names the row and says why it failed.
func (e *RowError) Error() string {
	return fmt.Sprintf("%s, %s, %d threads: %v", e.Emulator, e.Schedule, e.Threads, e.Err)
}

// Unwrap returns the prediction's own error.
func (e *RowError) Unwrap() error { return e.Err }

// Sweep is a grid of predictions: every emulator × schedule × thread count.
type Sweep struct {
	Results []Result
	// Notes say, one sentence each, which rows were left out and why.
	Notes []string
}

// sweepJob is one row of a sweep.
type sweepJob struct {
	s  par.Schedule
	th int
	// err is why the job was left out (over its budget, too large).
	err error
}

// RunSweep predicts t for every emulator, schedule and thread count, in
// that nesting order. Rows an emulator cannot predict (a Limited emulator
// asked for more threads than it can) are skipped with a note. progress,
// if not nil, is called after each prediction with the number done and
// the total (never concurrently, with done increasing). A prediction
// that runs out of opt.Budget (each has a row's share of it, see
// NewBudget) is estimated instead, where its emulator computes its
// predictions rather than measuring the machine, from a sample of each
// large section's tasks (see SampleTasks), its time scaled by its work:
// Result.Sampled is set and a note names such rows. One that cannot be
// estimated so (no section large enough, or its sample over a budget of
// the same size too), or that is too large to emulate (ErrTooLarge), is
// left out with a note; one that fails otherwise fails the sweep with a
// *RowError naming it.
//
// The rows of an emulator that implements Cloner are predicted in
// parallel on up to GOMAXPROCS goroutines, each with its own clone; the
// results come back in the same order as sequentially, and opt.Burden is
// then called concurrently (it must be safe for that, as a pure function
// is). Other emulators (the synthesizer, which measures wall time on this
// machine) run their rows sequentially, never at the same time as
// another emulator's rows.
func RunSweep(t *tree.Tree, emus []SectionEmulator, threads []int, scheds []par.Schedule, opt Options, progress func(done, total int)) (Sweep, error) {
	var sw Sweep
	total := len(emus) * len(threads) * len(scheds)
	done := 0
	// A budget smaller than the tree written out once for every row may
	// not last for every row: the rows that cost the least then go first,
	// so that the few that would take all of it (a goroutine per task,
	// emulated task by task) run out of it, rather than the others.
	tight := opt.Budget != nil && float64(t.Totals().ExpandedNodes)*float64(total) > opt.Budget.Limit()
	for _, e := range emus {
		limit := 0
		if l, ok := e.(Limited); ok {
			limit = l.MaxThreads()
		}
		var skipped []int
		var jobs []sweepJob
		for _, s := range scheds {
			for _, th := range threads {
				if limit > 0 && th > limit {
					if s == scheds[0] {
						skipped = append(skipped, th)
					}
					continue
				}
				jobs = append(jobs, sweepJob{s: s, th: th})
			}
		}
		// Skipped rows count as done at once (the progress bar's total
		// includes them).
		done += len(threads)*len(scheds) - len(jobs)
		res, left, err := runRows(t, e, jobs, opt, tight, func() {
			done++
			if progress != nil {
				progress(done, total)
			}
		})
		if err != nil {
			return Sweep{}, err
		}
		est, left, err := estimate(t, e, left, opt)
		if err != nil {
			return Sweep{}, err
		}
		if len(est) > 0 {
			res = inJobOrder(append(res, est...), jobs)
			sw.Notes = append(sw.Notes, sampledNote(e.Name(), res))
		}
		sw.Results = append(sw.Results, res...)
		if len(skipped) > 0 {
			sort.Ints(skipped)
			sw.Notes = append(sw.Notes, fmt.Sprintf("%s predicts up to %d threads on this machine; rows for %v threads come from the other emulators only", e.Name(), limit, skipped))
		}
		sw.Notes = append(sw.Notes, leftOutNotes(e.Name(), left)...)
	}
	return sw, nil
}

// runRows predicts jobs with e, in parallel when e is a Cloner (the
// costliest first, or with cheapFirst the cheapest), and returns the
// results in the order of jobs, leaving out the jobs that ran out of
// their budget or were too large to emulate (returned as left, in the
// order of jobs, each with its error: each prediction spends a row's
// budget of opt.Budget). tick is called after each prediction, never
// concurrently. The error returned is that of the first failing job in
// order, other than those.
func runRows(t *tree.Tree, e SectionEmulator, jobs []sweepJob, opt Options, cheapFirst bool, tick func()) (res []Result, left []sweepJob, err error) {
	out := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	predict := func(e SectionEmulator, i int) {
		o := opt
		o.Budget = opt.Budget.row()
		out[i], errs[i] = Predict(e, t, jobs[i].th, jobs[i].s, o)
		o.Budget.release()
	}
	// collect returns the results, the jobs left out (over budget or
	// too large) and the first other error of the jobs done.
	collect := func() ([]Result, []sweepJob, error) {
		for i, err := range errs {
			switch {
			case err == nil:
				res = append(res, out[i])
			case LeftOut(err):
				j := jobs[i]
				j.err = err
				left = append(left, j)
			default:
				return nil, nil, &RowError{Emulator: e.Name(), Schedule: jobs[i].s, Threads: jobs[i].th, Err: err}
			}
		}
		return res, left, nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	if opt.Workers > 0 {
		workers = min(workers, opt.Workers)
	}
	c, ok := e.(Cloner)
	var clones []SectionEmulator
	if ok && workers > 1 {
		for range workers {
			ce := c.Clone()
			if ce == nil {
				clones = nil
				break
			}
			clones = append(clones, ce)
		}
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	if len(clones) < 2 {
		// In order, unless the cheapest must go first.
		if cheapFirst {
			sort.SliceStable(order, func(a, b int) bool { return jobCost(jobs[order[a]]) < jobCost(jobs[order[b]]) })
		}
		for _, i := range order {
			predict(e, i)
			if errs[i] != nil && !LeftOut(errs[i]) {
				break
			}
			tick()
		}
		return collect()
	}
	// Longest first: the rows' costs differ by an order of magnitude
	// (they grow with the thread count, and spawn and dynamic dispatch
	// cost the most), and a long row taken last leaves the other
	// goroutines idle while it finishes. With cheapFirst, the other way
	// round.
	sort.SliceStable(order, func(a, b int) bool {
		if cheapFirst {
			return jobCost(jobs[order[a]]) < jobCost(jobs[order[b]])
		}
		return jobCost(jobs[order[a]]) > jobCost(jobs[order[b]])
	})
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	for _, ce := range clones {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				next++
				stop := failed
				mu.Unlock()
				if k >= len(jobs) || stop {
					return
				}
				i := order[k]
				predict(ce, i)
				mu.Lock()
				if errs[i] != nil && !LeftOut(errs[i]) {
					failed = true
				} else {
					tick()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return collect()
}

// estimate predicts the rows of left that ran over their budget from
// samples of t's large sections (sampleTree: each section's time scaled
// by its work), where e computes its predictions rather than measuring
// the machine and t has such a section. The estimates draw from a budget
// of their own, as large as opt's. It returns them (Result.Sampled set)
// and the rows still left out, in the order they came: the others, and
// those whose sample ran over its budget too or had no section large
// enough.
func estimate(t *tree.Tree, e SectionEmulator, left []sweepJob, opt Options) ([]Result, []sweepJob, error) {
	if len(left) == 0 || Measures(e) {
		return nil, left, nil
	}
	over := map[int][]sweepJob{} // by thread count: the sample's size follows it
	var threads []int
	n := 0
	for _, j := range left {
		if errors.Is(j.err, ErrOverBudget) {
			if len(over[j.th]) == 0 {
				threads = append(threads, j.th)
			}
			over[j.th] = append(over[j.th], j)
			n++
		}
	}
	if n == 0 {
		return nil, left, nil
	}
	o := opt
	o.Budget = NewBudget(opt.Budget.Limit(), n)
	var out []Result
	done := map[sweepJob]bool{} // the rows estimated, by schedule and thread count
	for _, th := range threads {
		smp, ok := sampleTree(t, th)
		if !ok {
			continue
		}
		est, _, err := runRows(smp.t, scaled{e, smp.ratio}, over[th], o, false, func() {})
		if err != nil {
			return nil, nil, err
		}
		for _, r := range est {
			out = append(out, smp.estimate(r))
			done[sweepJob{s: r.Schedule, th: r.Threads}] = true
		}
	}
	var rest []sweepJob
	for _, j := range left {
		if !done[sweepJob{s: j.s, th: j.th}] {
			rest = append(rest, j)
		}
	}
	return out, rest, nil
}

// inJobOrder returns res, one emulator's results, in the order of jobs.
func inJobOrder(res []Result, jobs []sweepJob) []Result {
	pos := make(map[sweepJob]int, len(jobs))
	for i, j := range jobs {
		pos[sweepJob{s: j.s, th: j.th}] = i
	}
	sort.SliceStable(res, func(a, b int) bool {
		return pos[sweepJob{s: res[a].Schedule, th: res[a].Threads}] < pos[sweepJob{s: res[b].Schedule, th: res[b].Threads}]
	})
	return res
}

// jobGroup is the rows of one schedule that one note names together:
// their thread counts, sorted, and the first of them, whose error the
// note can quote.
type jobGroup struct {
	first sweepJob
	th    []int
}

// groupJobs groups jobs by schedule, and within one by alike (nil: all
// alike), in the order of their first rows.
func groupJobs(jobs []sweepJob, alike func(a, b sweepJob) bool) []jobGroup {
	var groups []jobGroup
	for len(jobs) > 0 {
		g := jobGroup{first: jobs[0]}
		rest := jobs[:0:0]
		for _, j := range jobs {
			if j.s == g.first.s && (alike == nil || alike(g.first, j)) {
				g.th = append(g.th, j.th)
			} else {
				rest = append(rest, j)
			}
		}
		jobs = rest
		sort.Ints(g.th)
		groups = append(groups, g)
	}
	return groups
}

// sampledNote says which of emulator em's results in res are estimates
// from a sample of the program's large sections (Result.Sampled), in
// one note.
func sampledNote(em string, res []Result) string {
	var est []sweepJob
	for _, r := range res {
		if r.Sampled {
			est = append(est, sweepJob{s: r.Schedule, th: r.Threads})
		}
	}
	var rows []string
	for _, g := range groupJobs(est, nil) {
		rows = append(rows, fmt.Sprintf("%s at %s threads", g.first.s, joinInts(g.th)))
	}
	// The counts with their thousands grouped.
	return message.NewPrinter(language.English).Sprintf("estimated, over their share of the emulation budget: %s %s; each large section emulated on %d windows of its tasks spread through it, at least %d tasks and %.0f ms of work a thread in all, its time scaled by its work (within about a tenth of the full emulation on the loops measured; raise --budget for the full emulation)", em, strings.Join(rows, ", "), SampleWindows, SampleTasks, SampleWorkNs/1e6)
}

// leftOutNotes says which of emulator em's rows ran out of their
// budget, or were too large to emulate, and were left out: one note for
// each schedule and reason.
func leftOutNotes(em string, left []sweepJob) []string {
	var notes []string
	large := func(j sweepJob) bool { return errors.Is(j.err, ErrTooLarge) }
	for _, g := range groupJobs(left, func(a, b sweepJob) bool { return large(a) == large(b) }) {
		if large(g.first) {
			notes = append(notes, fmt.Sprintf("left out: %s %s at %s threads (%v)", em, g.first.s, joinInts(g.th), g.first.err))
			continue
		}
		notes = append(notes, fmt.Sprintf("left out, over their share of the emulation budget: %s %s at %s threads (raise --budget to predict them)", em, g.first.s, joinInts(g.th)))
	}
	return notes
}

// joinInts writes xs as "1", "1 and 2" or "1, 2 and 4".
func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// jobCost is a rough relative cost of predicting row j, to hand out the
// longest rows first (or, on a tight budget, the cheapest): emulation
// work grows about linearly with the thread count (more interleaved
// events per task), per-task dispatch (dynamic, guided, pool) adds
// events that static blocks do not have, and a goroutine per task
// (spawn, errgroup) adds several a task (on a regular loop of 10^6
// tasks with measured overheads: spawn 8 steps a task at 4 threads,
// dynamic:1 2 at 16). Only the order of the values matters.
func jobCost(j sweepJob) float64 {
	w := 1.0
	switch j.s.Policy {
	case par.Spawn, par.Errgroup:
		w = 8
	case par.Dynamic, par.Guided, par.Pool:
		w = 1.5
	}
	return w * float64(j.th)
}
