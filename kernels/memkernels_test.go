package kernels

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/tree"
)

// TestMemoryKernels runs the memory-bound kernels (stream, cg) at a small
// scale serially and in parallel with several schedules and thread
// counts, and checks each result.
func TestMemoryKernels(t *testing.T) {
	scheds := []par.Schedule{
		{Policy: par.Static}, {Policy: par.StaticChunk, Chunk: 1},
		{Policy: par.Dynamic, Chunk: 2}, {Policy: par.Guided, Chunk: 1}, {Policy: par.Spawn},
	}
	for _, name := range []string{"stream", "cg"} {
		k, err := New(name, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		if k.Name() != name || k.Describe() == "" || k.Schedule().Policy != par.Static {
			t.Errorf("%s: name %q, schedule %v", name, k.Name(), k.Schedule())
		}
		k.Reset()
		k.Serial()
		if err := k.Check(); err != nil {
			t.Errorf("%s serial: %v", name, err)
		}
		for _, s := range scheds {
			for _, threads := range []int{1, 2, 3} {
				k.Reset()
				k.Parallel(threads, s)
				if err := k.Check(); err != nil {
					t.Errorf("%s parallel %d threads %v: %v", name, threads, s, err)
				}
			}
		}
	}
}

// TestMemoryKernelsCheckFails makes sure Check can fail: a run that was
// not done, or a corrupted result.
func TestMemoryKernelsCheckFails(t *testing.T) {
	st := NewStream(0.01).(*Stream)
	st.Reset()
	st.Serial()
	st.a[len(st.a)/2] += 1
	if err := st.Check(); err == nil {
		t.Error("stream: corrupted result passed Check")
	}
	cg := NewCG(0.01).(*CG)
	cg.Reset()
	if err := cg.Check(); err == nil {
		t.Error("cg: Check passed before any run")
	}
	cg.Serial()
	cg.p[3] *= 1.001
	if err := cg.Check(); err == nil {
		t.Error("cg: corrupted result passed Check")
	}
}

// TestMemoryKernelsTrees records the serial versions and checks the
// program tree's top-level sections and the lock in cg's reduction.
func TestMemoryKernelsTrees(t *testing.T) {
	tests := []struct {
		name  string
		secs  map[string]int64 // top-level section instances by name
		tasks int64            // tasks per section instance
		lock  bool
	}{
		{"stream", map[string]int64{"stream.triad": 20}, 64, false},
		{"cg", map[string]int64{"cg.spmv": 10, "cg.update": 10}, 64, true},
	}
	for _, tc := range tests {
		k, err := New(tc.name, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		k.Reset()
		tr, err := annotate.Record(k.Serial)
		if err != nil {
			t.Fatalf("%s: recording: %v", tc.name, err)
		}
		if err := k.Check(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		got := map[string]int64{}
		lock := false
		for sec := range tr.Root.Expanded() {
			if sec.Kind != tree.KindSec {
				continue
			}
			got[sec.Name]++
			var tasks int64
			for task := range sec.Expanded() {
				if task.Kind != tree.KindTask {
					continue
				}
				tasks++
				for leaf := range task.Expanded() {
					lock = lock || leaf.Kind == tree.KindL && leaf.Lock == 1
				}
			}
			if tasks != tc.tasks {
				t.Errorf("%s: section %s has %d tasks, want %d", tc.name, sec.Name, tasks, tc.tasks)
			}
		}
		if len(got) != len(tc.secs) {
			t.Errorf("%s: sections %v, want %v", tc.name, got, tc.secs)
		}
		for name, n := range tc.secs {
			if got[name] != n {
				t.Errorf("%s: %d instances of %s, want %d (got %v)", tc.name, got[name], name, n, got)
			}
		}
		if lock != tc.lock {
			t.Errorf("%s: lock 1 recorded %v, want %v", tc.name, lock, tc.lock)
		}
		if !strings.Contains(k.Describe(), "memory-bound") {
			t.Errorf("%s: Describe %q", tc.name, k.Describe())
		}
	}
}

// BenchmarkMemoryKernels times the memory-bound kernels at scale 1:
// serial (annotations not recording) and par with 1 and 2 workers. On a
// machine whose memory bandwidth saturates, 2 workers gain little.
func BenchmarkMemoryKernels(b *testing.B) {
	for _, name := range []string{"stream", "cg"} {
		k, err := New(name, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/serial", func(b *testing.B) {
			for b.Loop() {
				k.Reset()
				k.Serial()
			}
		})
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/par%d", name, threads), func(b *testing.B) {
				for b.Loop() {
					k.Reset()
					k.Parallel(threads, k.Schedule())
				}
			})
		}
	}
}
