package validate

import (
	"context"
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/kernels"
	"github.com/parallel-prophet/prophet/tree"
)

// BenchmarkSetupAnnotation compares ff's prediction for the rowfilter
// kernel at 2 threads, recorded with its table marked as per-worker
// setup (annotate.Setup) and left in each row, against the real
// parallel run (which builds the table once per worker): the errors are
// reported as setup-err and perrow-err.
func BenchmarkSetupAnnotation(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs two cores")
	}
	for b.Loop() {
		for _, v := range []struct {
			metric string
			make   func(float64) kernels.Kernel
		}{{"setup-err", kernels.NewRowFilter}, {"perrow-err", kernels.NewRowFilterPerRow}} {
			k := v.make(1)
			k.Reset()
			k.Serial() // warm up
			var tr *tree.Tree
			for range 3 {
				k.Reset()
				t, err := annotate.Record(k.Serial)
				if err != nil {
					b.Fatal(err)
				}
				if tr == nil || tree.Work(t.Root) < tree.Work(tr.Root) {
					tr = t
				}
			}
			rep, err := CompareKernel(context.Background(), "rowfilter", k, tr, Config{Threads: []int{2}, Emulators: []string{"ff"}, Repeats: 5})
			if err != nil {
				b.Fatal(err)
			}
			r := rep.Rows[0]
			b.Logf("%s: real %.3f (serial %.2f ms, parallel %.2f ms), predicted %.3f (recorded %.2f ms)", v.metric, r.Real, r.SerialNs/1e6, r.ParallelNs/1e6, r.Predicted, r.RecordedNs/1e6)
			b.ReportMetric((r.Predicted-r.Real)/r.Real, v.metric)
		}
	}
}
