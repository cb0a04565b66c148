package profiler

import (
	"errors"
	"testing"

	"github.com/parallel-prophet/prophet/tree"
)

// FuzzEvents replays annotation event sequences read from the input
// into a recording: each byte picks a call (SecBegin, SecEnd with or
// without a barrier, TaskBegin, TaskEnd, LockBegin, LockEnd,
// LockIndexedBegin, SetupBegin, SetupEnd, a stretch of computation), the
// next its name or lock id. Whatever the order,
// Stop returns a valid tree or an *AnnotationError, never a panic or a
// tree that fails tree.Validate.
func FuzzEvents(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 4, 3, 5, 3, 3, 0, 1})
	f.Add([]byte{2, 0, 3, 0})
	f.Add([]byte{0, 0, 2, 0, 0, 1, 2, 1, 3, 1, 1, 0, 3, 0, 1, 0})
	f.Add([]byte{4, 7, 5, 7, 5, 7})
	f.Add([]byte{0, 0, 2, 1, 8, 0, 9, 0, 9, 0, 3, 0, 8, 0, 9, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Start(Options{NoCounters: true, NoPin: true, Clock: ClockNanotime, EventCostNs: 1})
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"a", "b", "c"}
		for i := 0; i+1 < len(data); i += 2 {
			arg := int(data[i+1])
			switch data[i] % 11 {
			case 0:
				p.SecBegin(names[arg%3])
			case 1:
				p.SecEnd(arg%2 == 1)
			case 2:
				p.TaskBegin(names[arg%3])
			case 3:
				p.TaskEnd()
			case 4:
				p.LockBegin(arg % 4)
			case 5:
				p.LockEnd(arg % 4)
			case 6:
				p.LockIndexedBegin(arg % 4)
			case 8:
				p.SetupBegin()
			case 9:
				p.SetupEnd()
			default:
				for range arg {
					_ = tree.FormatNs(int64(arg)) // a little computation
				}
			}
		}
		tr, err := p.Stop()
		if err != nil {
			var ae *AnnotationError
			if !errors.As(err, &ae) {
				t.Fatalf("Stop: %v (want nil or an *AnnotationError)", err)
			}
			if tr != nil {
				t.Fatalf("a tree came back with the error %v", err)
			}
			return
		}
		if err := tree.Validate(tr); err != nil {
			t.Fatalf("Stop returned an invalid tree: %v", err)
		}
	})
}
