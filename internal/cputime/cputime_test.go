package cputime

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// burn spins for about n iterations of a multiply-add the compiler
// cannot drop.
func burn(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func TestClocksAdvanceWithWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := Process(); ok {
			t.Fatal("Process reports a clock off Linux")
		}
		t.Skip("no CPU-time clocks here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for name, read := range map[string]func() (int64, bool){"Thread": Thread, "Process": Process} {
		a, ok := read()
		if !ok {
			t.Fatalf("%s: no clock on Linux", name)
		}
		sink := burn(20_000_000)
		b, ok := read()
		if !ok || b <= a {
			t.Errorf("%s: %d then %d after work (%d): want it to advance", name, a, b, sink)
		}
	}
}

// ExampleProcess measures the CPU time a piece of work took, across all
// the threads it ran on.
func ExampleProcess() {
	before, ok := Process()
	sink := burn(1_000_000)
	after, _ := Process()
	if ok {
		fmt.Printf("%v of CPU time (%d)\n", time.Duration(after-before), sink%2)
	}
}

func TestAround(t *testing.T) {
	ran := false
	ns, ok := Around(func() { ran = true; burn(1e7) })
	if !ran {
		t.Fatal("Around did not run fn")
	}
	if _, has := Process(); ok != has || ok && ns <= 0 {
		t.Errorf("Around = %d, %v: want a positive time exactly where Process works", ns, ok)
	}
}

func TestTimed(t *testing.T) {
	for _, warm := range []int{0, 2} {
		ran := false
		wall, cpu := Timed(warm, func() {
			ran = true
			time.Sleep(2 * time.Millisecond)
		})
		if !ran {
			t.Fatalf("warm %d: fn did not run", warm)
		}
		// The warm-up's spinning comes before the clock starts.
		if wall < 2e6 || wall > 2e9 {
			t.Errorf("warm %d: wall %v ns for a 2 ms sleep", warm, wall)
		}
		if _, ok := Process(); ok && cpu < 0 {
			t.Errorf("warm %d: cpu %v with a process clock", warm, cpu)
		} else if !ok && cpu != -1 {
			t.Errorf("warm %d: cpu %v without a process clock, want -1", warm, cpu)
		}
	}
}
