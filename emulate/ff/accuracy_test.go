package ff_test

import (
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/emulate/ff"
	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/par"
	"github.com/parallel-prophet/prophet/validate"
)

// accuracySamples are validate samples (seed 1) on which the lock model
// matters: lock contention with worksharing teams (test1 #2, #7, #11,
// #13), short contended locks (test1 #9) and nested or inner-loop
// parallelism with locks (test2 #18, #23, #24).
var accuracySamples = []struct {
	test string
	i    int
}{
	{validate.Test1, 2}, {validate.Test1, 7}, {validate.Test1, 9}, {validate.Test1, 11}, {validate.Test1, 13},
	{validate.Test2, 18}, {validate.Test2, 23}, {validate.Test2, 24},
}

// fastest returns the shortest of n timed runs of fn.
func fastest(n int, fn func()) time.Duration {
	var ds []time.Duration
	for range n {
		t0 := time.Now()
		fn()
		ds = append(ds, time.Since(t0))
	}
	return slices.Min(ds)
}

// TestAccuracyReal reports ff's predicted speedup at 2 threads (with
// machine.Default's overheads) next to the real one, for a few fixed
// validate samples. It asserts nothing about the timings: it is a
// measurement, opt-in (PROPHET_FF_ACCURACY=1, not with -short), best
// run on an otherwise idle machine with at least 2 cores:
//
//	PROPHET_FF_ACCURACY=1 go test -run AccuracyReal -v ./emulate/ff
func TestAccuracyReal(t *testing.T) {
	if testing.Short() || os.Getenv("PROPHET_FF_ACCURACY") == "" {
		t.Skip("opt-in measurement: set PROPHET_FF_ACCURACY=1 (and no -short)")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 cores")
	}
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	scheds, err := par.ParseSchedules("static,static:1,dynamic:1,spawn")
	if err != nil {
		t.Fatal(err)
	}
	opt := emulate.Options{Overheads: machine.Default().Overheads}
	var sum float64
	var n int
	for _, smp := range accuracySamples {
		p, err := validate.Generate(smp.test, validate.SampleSeed(1, smp.test, smp.i), 1)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := annotate.Record(p.Serial)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GOMAXPROCS(1)
		serial := fastest(7, p.Serial)
		for _, s := range scheds {
			res, err := emulate.Predict(ff.New(), tr, 2, s, opt)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GOMAXPROCS(2)
			real := float64(serial) / float64(fastest(7, func() { p.Parallel(2, s) }))
			e := (res.Speedup - real) / real
			sum += max(e, -e)
			n++
			t.Logf("%s #%-2d %-9s predicted %.2f real %.2f error %+5.1f%%  %s", smp.test, smp.i, s, res.Speedup, real, 100*e, p.Desc)
		}
	}
	t.Logf("average |error| %.1f%% over %d predictions", 100*sum/float64(n), n)
}
