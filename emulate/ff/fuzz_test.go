package ff_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// fuzzSchedules are the schedules the fuzz targets predict.
var fuzzSchedules = []par.Schedule{
	{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 2},
	{Policy: par.Dynamic, Chunk: 1}, {Policy: par.Guided, Chunk: 2},
	{Policy: par.Spawn},
}

// treeFrom builds a valid program tree from data, read as a small
// program: each byte picks the next node (computation, a lock, a task,
// a run of tasks, a nested section or the end of the current list) and
// the bytes after it its length, lock id (and whether it is indexed) or
// count. Nesting is at most
// four sections deep.
func treeFrom(data []byte) *tree.Tree {
	r := bytes.NewReader(data)
	next := func() int {
		b, err := r.ReadByte()
		if err != nil {
			return -1
		}
		return int(b)
	}
	length := func() int64 { return int64(max(next(), 0)) * 97 }
	var section func(depth int) *tree.Node
	task := func(depth int) *tree.Node {
		t := tree.Task([]string{"a", "b", "c"}[max(next(), 0)%3])
		for len(t.Children) < 8 {
			switch op := next(); {
			case op < 0 || op%8 == 0:
				return t
			case op%8 < 4:
				t.Children = append(t.Children, tree.U(length()))
			case op%8 < 6:
				id := max(next(), 0) % 10
				l := tree.L(id%5, length())
				l.Indexed = id >= 5
				t.Children = append(t.Children, l)
			case depth < 4:
				t.Children = append(t.Children, section(depth+1))
			}
		}
		return t
	}
	section = func(depth int) *tree.Node {
		s := tree.Sec([]string{"x", "y"}[max(next(), 0)%2])
		s.Nowait = next()%5 == 0
		for len(s.Children) < 8 {
			switch op := next(); {
			case op < 0 || op%6 == 0:
				if len(s.Children) == 0 {
					s.Children = append(s.Children, tree.Task("t", tree.U(1)))
				}
				return s
			case op%6 == 1:
				s.Children = append(s.Children, tree.U(length()))
			case op%6 < 4:
				s.Children = append(s.Children, task(depth))
			default:
				s.Children = append(s.Children, tree.Run(int64(1+max(next(), 0)%40), task(depth)))
			}
		}
		return s
	}
	root := tree.New()
	for len(root.Root.Children) < 6 {
		switch op := next(); {
		case op < 0:
			return root
		case op%3 == 0:
			root.Root.Children = append(root.Root.Children, tree.U(length()))
		default:
			root.Root.Children = append(root.Root.Children, section(1))
		}
	}
	return root
}

// checkPredictions predicts t with ff at a few thread counts and every
// fuzz schedule under m, and fails on an error or a speedup that is not
// a positive finite number (for a tree of no work, any finite number of
// at least zero: there is no speedup to speak of).
func checkPredictions(t *testing.T, tr *tree.Tree, m machine.Profile, burden func(*tree.Node, int) float64) {
	t.Helper()
	e := ff.New()
	opt := emulate.Options{Overheads: m.Overheads, Walk: m.Walk, Burden: burden}
	work := tree.Work(tr.Root)
	for _, th := range []int{1, 3, 8} {
		for _, s := range fuzzSchedules {
			res, err := emulate.Predict(e, tr, th, s, opt)
			if err != nil {
				t.Fatalf("ff, %d threads, %s: %v", th, s, err)
			}
			if math.IsNaN(res.Speedup) || math.IsInf(res.Speedup, 0) || res.Speedup < 0 || (res.Speedup == 0 && work > 0) {
				t.Fatalf("ff, %d threads, %s: speedup %v", th, s, res.Speedup)
			}
			// No schedule runs the work faster than th cores share it
			// out (costs and burdens only add; the noise model, which
			// takes the recording's average hiccups out and draws its
			// own, is off): a speedup above th means work was lost.
			if m.Overheads.NoiseHz == 0 && res.Speedup > float64(th)*(1+1e-9) {
				t.Fatalf("ff, %d threads, %s: speedup %v, above the thread count", th, s, res.Speedup)
			}
		}
	}
}

// fuzzDeadline is how long one fuzz input may take before it counts as
// a hang.
const fuzzDeadline = 10 * time.Second

// watchdog crashes the fuzz worker, so that the fuzzer keeps the input,
// when the returned function is not called within fuzzDeadline: a hang
// is a finding too.
func watchdog(data []byte) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(fuzzDeadline):
			panic(fmt.Sprintf("no answer within %v for input %q", fuzzDeadline, data))
		}
	}()
	return func() { close(done) }
}

// FuzzTree sends valid trees (written and read back, so through the
// file format's checks) through analyze, ff and what-if: none may fail
// or panic on a tree the file format accepts.
func FuzzTree(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{1, 0, 3, 9, 4, 200, 5, 1, 3, 7, 0, 0, 0})
	f.Add([]byte{2, 1, 5, 3, 5, 4, 9, 7, 1, 1, 5, 2, 9, 0, 0, 0, 4, 40, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(data)()
		built := treeFrom(data)
		if err := tree.Validate(built); err != nil {
			t.Fatalf("the generator built an invalid tree: %v", err)
		}
		var buf bytes.Buffer
		if err := tree.Write(&buf, built); err != nil {
			t.Fatalf("writing: %v", err)
		}
		tr, err := tree.Read(&buf)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if tr.Totals().ExpandedNodes > 3000 {
			t.Skip("larger than a fuzz input should emulate")
		}
		a, err := analyze.Analyze(tr, analyze.Options{Overheads: machine.Default().Overheads, Threads: []int{1, 2, 8}})
		if err != nil {
			t.Fatalf("analyze: %v", err)
		}
		checkPredictions(t, tr, machine.Default(), nil)
		quiet := machine.Default()
		quiet.Overheads.NoiseHz = 0
		checkPredictions(t, tr, quiet, nil)
		for _, r := range a.Regions {
			for _, ch := range []analyze.Change{{Region: r.Name, Faster: 2}, {Region: r.Name, Parallelize: 3}} {
				nt, err := analyze.WhatIf(tr, ch)
				if err != nil {
					continue // a change a region does not take (a region with no own code to split)
				}
				if err := tree.Validate(nt); err != nil {
					t.Fatalf("what-if %s made an invalid tree: %v", ch, err)
				}
				if _, err := analyze.Analyze(nt, analyze.Options{Threads: []int{2}}); err != nil {
					t.Fatalf("analyze after %s: %v", ch, err)
				}
			}
		}
	})
}

// FuzzMachine feeds machine profiles, as JSON, to the emulator and the
// memory model: a profile Validate accepts must give every prediction a
// positive finite speedup, soon.
func FuzzMachine(f *testing.F) {
	def, _ := json.Marshal(machine.Default())
	f.Add(def)
	paper := machine.Default()
	mem := memmodel.PaperMachine()
	paper.Memory = &mem
	paper.ComputeInflation = map[int]float64{2: 1.1, 8: 1.5}
	withMem, _ := json.Marshal(paper)
	f.Add(withMem)
	f.Add([]byte(`{"version":5,"overheads":{"noise_hz":1e5,"noise_p50_ns":1000,"noise_p90_ns":4000,"lock_handoff_ns":1e9}}`))
	// A spin window without a ramp, and goroutines that park at once.
	f.Add([]byte(`{"version":5,"overheads":{"lock_handoff_ns":1000,"lock_switch_ns":100,"lock_spin_ns":5000,"spawn_ns":50}}`))
	sec := tree.Sec("stream", tree.Run(6, tree.Task("block", tree.U(200_000), tree.L(1, 3_000))))
	sec.Counters = &tree.Counters{Instructions: 1e7, Cycles: 2e7, LLCMisses: 1e6, TimeNs: 4e6, Runs: 1}
	// Spawned goroutines that meet at a short lock while others wait
	// for a core park at once.
	short := tree.Sec("short", tree.Run(40, tree.Task("s", tree.U(100), tree.L(2, 50), tree.U(100))))
	tr := tree.New(tree.U(1000), sec, tree.Sec("nest", tree.Task("t", tree.Sec("in", tree.Run(3, tree.Task("u", tree.U(5000)))))), short)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(data)()
		var m machine.Profile
		if err := json.Unmarshal(data, &m); err != nil || m.Validate() != nil {
			return
		}
		burden, _ := memmodel.ForTree(tr, m, memmodel.Auto)
		checkPredictions(t, tr, m, burden)
	})
}
