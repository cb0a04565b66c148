package calibrate

import (
	"context"
	"testing"
)

func TestMeasureComputeShape(t *testing.T) {
	if testing.Short() {
		t.Skip("runs compute loops")
	}
	k, err := MeasureCompute(context.Background(), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Values depend on the machine; only the shape is checked.
	if k[1] != 1 {
		t.Errorf("κ_1 = %v, want 1", k[1])
	}
	for th, v := range k {
		if v < 1 {
			t.Errorf("κ_%d = %v, below 1", th, v)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureCompute(ctx, 2, nil); err == nil && len(k) > 1 {
		t.Error("a cancelled context was not reported")
	}
}
