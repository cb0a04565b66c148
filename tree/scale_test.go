package tree

import "testing"

func TestScaled(t *testing.T) {
	shared := Run(2, Task("t", U(100), L(1, 10)))
	shared.id = 7
	sec := Sec("s", shared, U(41), shared)
	c := Scaled(sec, 0.5)
	if got, want := Work(c), int64(4*(50+5)+21); got != want {
		t.Errorf("scaled work %d, want %d", got, want)
	}
	if got, want := Work(sec), int64(4*110+41); got != want {
		t.Errorf("original work %d, want %d (changed)", got, want)
	}
	if c.Children[0] != c.Children[2] || c.Children[0] == shared {
		t.Error("a shared node's copy is not shared, or not a copy")
	}
	if c.Name != "s" || c.Kind != KindSec || c.Children[0].Count != 2 || c.Children[1].Len != 21 || c.Children[0].Children[1].Lock != 1 {
		t.Errorf("copy %+v", c)
	}
}
