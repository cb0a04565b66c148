package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// maxRepeat is the most recordings prophet run --repeat pools.
const maxRepeat = 20

// poolRecordings runs argv n−1 more times after its first recording
// (whose profile, t, is at profile), each recording pooled with the ones
// before through the pool file at poolPath (env names it to the program
// as annotate.EnvRepeat), and
// returns the profile of the last recording that pooled: every interval
// at the length its recordings agree on (the shorter of two, the second
// shortest of more), which leaves out the interrupts and collections
// that struck one recording's tasks and not the others'.
// The later runs' output is not shown (the first run's was). A run that
// fails, or that did other work than the first (a mismatch), ends the
// pooling with a note, keeping the recordings before it. It also
// returns how many recordings the profile pools.
func poolRecordings(e *env, argv, env []string, poolPath, profile string, n int, t *tree.Tree) (*tree.Tree, int, error) {
	if _, err := os.Stat(poolPath); err != nil {
		fmt.Fprintf(e.stderr, "prophet: %s wrote no pool of its recording (%s): built with an annotate package older than prophet's? One recording kept\n", filepath.Base(argv[0]), annotate.EnvRepeat)
		return t, 1, nil
	}
	pooled, capped := 1, 0
	for i := 2; i <= n; i++ {
		fmt.Fprintf(e.stderr, "prophet: recording %d of %d (its output not shown)\n", i, n)
		next, c, why, err := poolOne(argv, env, poolPath, profile, i, n)
		if err != nil {
			return nil, 0, err
		}
		if why != "" {
			fmt.Fprintf(e.stderr, "prophet: recording %d of %d %s; the profile pools the %d before it\n", i, n, why, pooled)
			return t, pooled, nil
		}
		t, pooled, capped = next, i, c
	}
	if capped > 0 {
		fmt.Fprintf(e.stderr, "prophet: pooled %d recordings over their first %d events, the most a pool keeps: each of those intervals at the length they agree on, the rest the last recording's\n", pooled, capped)
	} else {
		fmt.Fprintf(e.stderr, "prophet: pooled %d recordings: every interval at the length they agree on\n", pooled)
	}
	return t, pooled, nil
}

// recordedEvents estimates the annotation events that recorded t: a
// begin and an end per task, section and critical section, and the Stop.
func recordedEvents(t *tree.Tree) int64 {
	tot := t.Totals()
	return 2*(tot.Tasks+tot.Sections+tot.Locks) + 1
}

// poolOne makes recording i of n for poolRecordings and, where it pooled,
// moves its profile to profile and returns it, with the number of
// events the pool holds where it is capped (profiler.Repeat.Capped; else
// 0). Where it did not pool, why says what went wrong and pooling stops
// there; err is for what ends prophet run itself (a signal, a profile
// that cannot be moved).
func poolOne(argv, env []string, poolPath, profile string, i, n int) (next *tree.Tree, capped int, why string, err error) {
	tmp, errName, cleanup, err := childFiles(filepath.Dir(profile), "repeat", ".ppt")
	if err != nil {
		return nil, 0, "", fmt.Errorf("run: recording %d: %w", i, err)
	}
	defer cleanup()
	abs, err := filepath.Abs(tmp)
	if err != nil {
		return nil, 0, "", fmt.Errorf("run: %w", err)
	}
	runErr, sig, err := recordChild(argv, env, abs, errName, nil, nil, nil)
	switch {
	case err != nil:
		return nil, 0, fmt.Sprintf("could not be run (%v)", err), nil
	case sig != nil:
		return nil, 0, "", &exitStatus{code: 130, msg: fmt.Sprintf("%v received during recording %d of %d; no profile written", sig, i, n)}
	}
	if msg := childError(errName); msg != "" {
		return nil, 0, "failed: " + msg, nil
	}
	if runErr != nil {
		_, how := childStatus(runErr)
		return nil, 0, how, nil
	}
	mismatch, capped := poolState(poolPath)
	if mismatch != "" {
		return nil, 0, fmt.Sprintf("did other work than the first (%s), which pooling needs to be the same", mismatch), nil
	}
	next, err = tree.ReadFile(abs)
	if err != nil {
		return nil, 0, fmt.Sprintf("wrote no readable profile (%v)", err), nil
	}
	if err := os.Rename(abs, profile); err != nil {
		return nil, 0, "", fmt.Errorf("run: recording %d: %w", i, err)
	}
	return next, capped, "", nil
}

// spikeShare is the share of a profile's work in tasks that look struck
// by a hiccup (tree.Spikes) from which prophet run suggests --repeat.
const spikeShare = 0.005

// spikeHint returns a line suggesting --repeat when the tasks of t that
// look struck by a hiccup while recorded hold spikeShare of its work or
// more, else "".
func spikeHint(t *tree.Tree) string {
	n, excess := tree.Spikes(t.Root)
	work := tree.Work(t.Root)
	if n == 0 || work <= 0 || float64(excess) < spikeShare*float64(work) {
		return ""
	}
	what := fmt.Sprintf("%d tasks look", n)
	if n == 1 {
		what = "1 task looks"
	}
	how := "prophet run --repeat 3 pools recordings to leave them out"
	if ev := recordedEvents(t); ev > profiler.MaxRepeatEvents {
		how = fmt.Sprintf("prophet run --repeat 3 pools recordings to leave them out, but only over their first %d events (about %d tasks), the most a pool keeps, of this one's %d", profiler.MaxRepeatEvents, profiler.MaxRepeatEvents/2, ev)
	}
	return fmt.Sprintf("prophet: %s struck by an interrupt or a garbage collection while recorded (%s, %.1f%% of the work): a schedule that gives them to one thread is predicted slower than it runs; %s",
		what, tree.FormatNs(excess), 100*float64(excess)/float64(work), how)
}

// poolState returns why the last recording pooled through the file at
// path did not pool with the first ("" when it did), or the error that
// kept the file from being read, and, where the pool is capped
// (profiler.Repeat.Capped), how many events it holds (else 0).
func poolState(path string) (mismatch string, capped int) {
	f, err := os.Open(path)
	if err != nil {
		return err.Error(), 0
	}
	defer f.Close()
	rp, err := profiler.ReadRepeat(f)
	if err != nil {
		return err.Error(), 0
	}
	if rp.Capped() {
		capped = rp.Events()
	}
	return rp.Mismatch(), capped
}
