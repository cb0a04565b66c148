package emulate

import (
	"fmt"
	"sync"
	"testing"
)

func TestBudget(t *testing.T) {
	for _, steps := range []float64{0, -1} {
		if b := NewBudget(steps); b != nil || !b.Spend(1<<40) || b.Limit() != 0 || b.Used() != 0 {
			t.Errorf("NewBudget(%v) = %v, want nil, which never runs out", steps, b)
		}
	}
	b := NewBudget(10_000)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				b.Spend(10)
			}
		})
	}
	wg.Wait()
	if b.Used() != 10_000 || b.Limit() != 10_000 {
		t.Errorf("used %v of %v, want 10000 of 10000", b.Used(), b.Limit())
	}
	if !b.Spend(0) {
		t.Error("a budget spent to its limit still holds the steps already taken")
	}
	if b.Spend(1) {
		t.Error("a step past the limit: Spend reports the budget still held it")
	}
}

func ExampleBudget() {
	b := NewBudget(1000)
	fmt.Println(b.Spend(600), b.Spend(600))
	// Output: true false
}
