package tree

import (
	"bytes"
	"runtime"
	"testing"
)

// BenchmarkBuilderTask measures one task event pair (BeginTask, U, EndTask)
// merging into the run before it: the profiler's steady state.
func BenchmarkBuilderTask(b *testing.B) {
	bl := NewBuilder(BuildOptions{})
	bl.BeginSec("s")
	j := newJitter(1)
	lens := make([]int64, 1024)
	for i := range lens {
		lens[i] = j.next(1000)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		bl.BeginTask("t")
		bl.U(lens[i&1023])
		bl.EndTask()
	}
}

// BenchmarkBuilderTaskULU is BenchmarkBuilderTask with a lock: Task{U, L, U}.
func BenchmarkBuilderTaskULU(b *testing.B) {
	bl := NewBuilder(BuildOptions{})
	bl.BeginSec("s")
	j := newJitter(1)
	var lens [3][1024]int64
	for i := range 1024 {
		lens[0][i], lens[1][i], lens[2][i] = j.next(1000), j.next(100), j.next(500)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		bl.BeginTask("t")
		bl.U(lens[0][i&1023])
		bl.L(1, lens[1][i&1023])
		bl.U(lens[2][i&1023])
		bl.EndTask()
	}
}

// goalTree records n tasks of the given shape ("U" or "ULU") with lengths
// jittered ±5% and returns the tree, the exact work fed, the heap growth
// and the builder's own estimate.
func goalTree(tb testing.TB, n int, shape string) (t *Tree, exact, heap, est int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	bl := NewBuilder(BuildOptions{})
	j := newJitter(7)
	bl.BeginSec("loop")
	for range n {
		bl.BeginTask("iter")
		if shape == "U" {
			exact += feedU(bl, j.next(1000))
		} else {
			exact += feedU(bl, j.next(600))
			exact += feedL(bl, 1, j.next(100))
			exact += feedU(bl, j.next(300))
		}
		bl.EndTask()
	}
	bl.EndSec(false, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	est = bl.MemoryBytes()
	t, err := bl.Finish(Meta{MeasuredNs: exact})
	if err != nil {
		tb.Fatal(err)
	}
	return t, exact, int64(after.HeapAlloc) - int64(before.HeapAlloc), est
}

// BenchmarkGoal10M is the package's goal: 10^7 tasks with lengths
// jittering ±5% record into at most 16 MiB of tree memory and a profile
// under 1 MiB, with the tree's work within 1% of the work fed. Run it with
// -benchtime=1x; it reports heap-B (heap growth while recording), est-B
// (Builder.MemoryBytes), file-B, nodes and err-% (|work−exact|/exact).
func BenchmarkGoal10M(b *testing.B) {
	if testing.Short() {
		b.Skip("10^7 tasks")
	}
	for _, shape := range []string{"U", "ULU"} {
		b.Run(shape, func(b *testing.B) {
			for b.Loop() {
				t, exact, heap, est := goalTree(b, 10_000_000, shape)
				var buf bytes.Buffer
				if err := Write(&buf, t); err != nil {
					b.Fatal(err)
				}
				tot := t.Totals()
				d := float64(tot.SerialNs-exact) / float64(exact)
				b.ReportMetric(float64(max(heap, 0)), "heap-B")
				b.ReportMetric(float64(est), "est-B")
				b.ReportMetric(float64(buf.Len()), "file-B")
				b.ReportMetric(float64(tot.Nodes), "nodes")
				b.ReportMetric(100*max(d, -d), "err-%")
			}
		})
	}
}

// BenchmarkTotals sums a 10^6-task tree recorded without compression of
// lengths (every task distinct), which exercises the linear walk.
func BenchmarkTotals(b *testing.B) {
	bl := NewBuilder(BuildOptions{Tolerance: -1})
	bl.BeginSec("s")
	for i := range 100_000 {
		bl.BeginTask("t")
		bl.U(int64(1000 + i))
		bl.EndTask()
	}
	bl.EndSec(false, nil)
	t, err := bl.Finish(Meta{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if t.Totals().Tasks != 100_000 {
			b.Fatal("wrong task count")
		}
	}
}

// BenchmarkWriteRead round-trips the same 10^5-node tree through the file
// format.
func BenchmarkWriteRead(b *testing.B) {
	bl := NewBuilder(BuildOptions{Tolerance: -1})
	bl.BeginSec("s")
	for i := range 100_000 {
		bl.BeginTask("t")
		bl.U(int64(1000 + i))
		bl.EndTask()
	}
	bl.EndSec(false, nil)
	t, err := bl.Finish(Meta{})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, t); err != nil {
			b.Fatal(err)
		}
		if _, err := Read(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Cap()), "file-B")
}
