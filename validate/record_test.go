package validate

import (
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
	"github.com/parallel-prophet/prophet/tree"
)

// TestRecordSerialRetries checks that a generated sample whose recorded
// work lies far off its plain serial run's time is recorded again, up to
// RecordTries times, and that one within range is recorded once.
func TestRecordSerialRetries(t *testing.T) {
	// serial records one section of one task that computes for about
	// work; plain computes for about plain. Both are bounded by the wall
	// clock, so a time slice lost to other test binaries lengthens
	// either by at most that slice: the durations are long enough that
	// such a slice (a few to tens of milliseconds on a loaded 2-core
	// machine) cannot move the plausible case's ratio out of
	// [PlausibleLow, PlausibleHigh] nor the implausible ones' into it.
	subj := func(test string, work, plain time.Duration, records *int) subject {
		return subject{
			test: test, sample: "0", reset: func() {}, check: func() error { return nil },
			serial: func() {
				*records++
				annotate.SecBegin("loop")
				annotate.TaskBegin("task")
				busy(work)
				annotate.TaskEnd()
				annotate.SecEnd(false)
			},
			plain: func() { busy(plain) },
		}
	}
	for _, tc := range []struct {
		name        string
		test        string
		work, plain time.Duration
		rerecords   int
	}{
		{"plausible", Fine, 40 * time.Millisecond, 40 * time.Millisecond, 0},
		{"recorded too short", Fine, time.Millisecond, 100 * time.Millisecond, RecordTries - 1},
		{"kernels are not checked", Examples, time.Millisecond, 100 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var records int
			m := &measurer{cfg: Config{Repeats: 1}, noted: map[string]bool{}}
			tr, err := m.recordSerial(subj(tc.test, tc.work, tc.plain, &records))
			if err != nil {
				t.Fatal(err)
			}
			if tr == nil || tree.Work(tr.Root) <= 0 {
				t.Fatalf("no recorded work")
			}
			if m.rerecorded != tc.rerecords || records != tc.rerecords+1 {
				t.Errorf("recorded again %d times (%d recordings), want %d", m.rerecorded, records, tc.rerecords)
			}
		})
	}
}

// busy computes for about d.
func busy(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}
