package spin

import (
	"fmt"
	"testing"

	"github.com/parallel-prophet/prophet/internal/clock"
)

func TestForCountsAtLeastRequested(t *testing.T) {
	tests := []struct {
		ns      int64
		wantMin int64
	}{
		{-5, 0},
		{0, 0},
		{1, 1},
		{100, 100},
		{5000, 5000},
		{200000, 200000},
	}
	// For itself, and each of its clocks this machine has.
	fors := map[string]func(int64) int64{"For": For, "ForOrdered": ForOrdered, "runtime clock": func(ns int64) int64 {
		if ns <= 0 {
			return 0
		}
		return forNow(ns)
	}}
	if r := tickRate; r > 0 {
		fors["tsc"] = func(ns int64) int64 {
			if ns <= 0 {
				return 0
			}
			return forTicks(ns, r, false)
		}
		fors["tsc, ordered"] = func(ns int64) int64 {
			if ns <= 0 {
				return 0
			}
			return forTicks(ns, r, true)
		}
	}
	for name, f := range fors {
		for _, tc := range tests {
			t.Run(fmt.Sprint(name, "/", tc.ns), func(t *testing.T) {
				start := clock.Now()
				got := f(tc.ns)
				wall := clock.Now() - start
				if got < tc.wantMin {
					t.Errorf("counted %d ns, want at least %d", got, tc.wantMin)
				}
				if tc.ns <= 0 && got != 0 {
					t.Errorf("= %d, want 0", got)
				}
				// Counted running time can never exceed the wall
				// time that passed (a property, not a timing
				// assertion; the counter's rate is known to a few
				// parts in 10^5).
				if float64(got) > float64(wall)*1.001+1 {
					t.Errorf("counted %d ns in only %d ns of wall time", got, wall)
				}
			})
		}
	}
}

// TestClock checks that Clock names the clock For reads.
func TestClock(t *testing.T) {
	want := clock.Name
	if tickRate > 0 {
		want = "tsc"
	}
	if got := Clock(); got != want {
		t.Errorf("Clock() = %q, want %q", got, want)
	}
}

func TestWallWaitsAtLeastRequested(t *testing.T) {
	for _, ns := range []int64{-1, 0, 1, 300, 20000} {
		start := clock.Now()
		Wall(ns)
		if wall := clock.Now() - start; wall < ns {
			t.Errorf("Wall(%d) returned after %d ns", ns, wall)
		}
	}
}

func Example() {
	// Stand in for 20 µs of computation.
	ran := For(20_000)
	fmt.Println(ran >= 20_000)
	// Output: true
}

func TestTeam(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		start := clock.Now()
		lost := Team(n, 50_000)
		wall := clock.Now() - start
		if len(lost) != n {
			t.Fatalf("Team(%d) returned %d values", n, len(lost))
		}
		for i, l := range lost {
			// Each goroutine ran For(50 µs), which takes at least
			// that long in wall time, within Team's own wall time.
			if l < 0 || l+50_000 > wall {
				t.Errorf("Team(%d): goroutine %d lost %d ns, outside [0, %d]", n, i, l, wall-50_000)
			}
		}
	}
}

func ExampleTeam() {
	// Keep two cores busy for 1 ms, e.g. to wake them before a timed
	// parallel run.
	lost := Team(2, 1_000_000)
	fmt.Println(len(lost))
	// Output: 2
}

func TestWorkRounds(t *testing.T) {
	if workRoundNs <= 0 {
		t.Fatalf("workRoundNs = %v, want > 0", workRoundNs)
	}
	for _, c := range []struct {
		ns   int64
		want int64
	}{
		{-5, 0},
		{0, 0},
		{1, 1}, // at least one round for any positive request
		{int64(100 * workRoundNs), 100},
		{int64(1000 * workRoundNs), 1000},
	} {
		if got := workRounds(c.ns); got < c.want-1 || got > c.want+1 {
			t.Errorf("workRounds(%d) = %d, want %d (round %.3f ns)", c.ns, got, c.want, workRoundNs)
		}
	}
}

func TestWork(t *testing.T) {
	if got := Work(0, 42); got != 42 {
		t.Errorf("Work(0, 42) = %d, want the seed back", got)
	}
	// The result is the mix of the seed, rounds deep: the same for the
	// same request, and different for another seed.
	a, b := Work(200, 7), Work(200, 7)
	if a != b {
		t.Errorf("Work(200, 7) gave %d and %d", a, b)
	}
	if a == 7 || a == Work(200, 8) {
		t.Errorf("Work(200, 7) = %d does not mix its seed", a)
	}
	if want := mix(7, workRounds(200)); a != want {
		t.Errorf("Work(200, 7) = %d, want mix(7, %d) = %d", a, workRounds(200), want)
	}
}

func ExampleWork() {
	// A loop body that computes on its index for about 100 ns.
	var sum uint64
	for i := range 3 {
		sum += Work(100, uint64(i))
	}
	fmt.Println(sum != 0)
	// Output: true
}

// TestWorkScale checks that WorkScale is a positive, finite factor
// within the spread a core's speed has on a shared machine (a factor of
// four either way is far outside it), and that Work scaled by it for 2
// ms takes at least half that (a lower bound: losing the core only makes
// it longer).
func TestWorkScale(t *testing.T) {
	s := WorkScale()
	if !(s > 0.25 && s < 4) {
		t.Fatalf("WorkScale() = %v, want a factor near 1", s)
	}
	t0 := clock.Now()
	Work(int64(2e6*s), 1)
	if d := clock.Now() - t0; d < 1e6 {
		t.Errorf("Work(2 ms × %.3f) took %d ns, want about 2 ms", s, d)
	}
}

func ExampleWorkScale() {
	// A replay that must compute for 500 ns now, whatever the core's
	// speed was when Work's rate was measured.
	x := Work(int64(500*WorkScale()), 1)
	fmt.Println(x != 0)
	// Output: true
}
