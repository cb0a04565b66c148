package clock

import (
	"fmt"
	"testing"
	"time"
)

func TestNowMonotonic(t *testing.T) {
	a := Now()
	b := Now()
	if b < a {
		t.Errorf("Now went back: %d then %d", a, b)
	}
}

func TestTicks(t *testing.T) {
	ok, why := TicksStable()
	if !ok && why == "" {
		t.Error("TicksStable says no without a reason")
	}
	rate := MeasureTickRate(2 * time.Millisecond)
	if rate <= 0 {
		t.Fatalf("tick rate %v ns/tick, want > 0", rate)
	}
	if !TicksAreTSC && rate != 1 {
		t.Errorf("tick rate %v without a TSC, want 1", rate)
	}
	// A sleep of 5 ms measured in ticks is at least 5 ms (very loose:
	// only the sign and the unit are checked).
	t0 := Ticks()
	time.Sleep(5 * time.Millisecond)
	if d := float64(Ticks()-t0) * rate; d < 4e6 || d > 5e9 {
		t.Errorf("5 ms sleep measured as %.0f ns from ticks", d)
	}
}

func ExampleTicks() {
	rate := MeasureTickRate(time.Millisecond) // ns per tick
	t0 := Ticks()
	time.Sleep(time.Millisecond)
	ns := float64(Ticks()-t0) * rate
	fmt.Println(ns >= 1e6)
	// Output: true
}

// TestTicksOrdered checks that an ordered reading does not come before
// a reading taken just before it on the same goroutine: LFENCE lets no
// later instruction start before every earlier one has completed. A
// move to another CPU between two readings may see a counter that lags
// a little, so a few such pairs are allowed.
func TestTicksOrdered(t *testing.T) {
	back := 0
	for i := 0; i < 10000; i++ {
		a := Ticks()
		b := TicksOrdered()
		if b < a {
			back++
		}
	}
	if back > 10 {
		t.Errorf("%d of 10000 ordered readings came before the reading taken just before them", back)
	}
}
