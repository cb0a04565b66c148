package tree

import "testing"

func TestSpikes(t *testing.T) {
	for _, c := range []struct {
		name         string
		n            *Node
		tasks, extra int64
	}{
		{"even", Sec("s", Run(100, Task("t", U(300)))), 0, 0},
		{"one struck task", Sec("s", Run(50, Task("t", U(300))), Task("t", U(20300)), Run(49, Task("t", U(300)))), 1, 20000},
		{"three times but under 5 µs more", Sec("s", Run(99, Task("t", U(300))), Task("t", U(1200))), 0, 0},
		{"a long task among long ones", Sec("s", Run(10, Task("t", U(10000))), Task("t", U(12000))), 0, 0},
		{"nested, repeated", Sec("outer", Run(3, Task("o", Sec("in", Run(20, Task("t", U(100))), Task("t", U(8100)))))), 3, 3 * 8000},
		// Half the tasks long: the median is long, nothing stands out.
		{"two kinds", Sec("s", Run(50, Task("t", U(100))), Run(50, Task("u", U(9000)))), 0, 0},
	} {
		tasks, extra := Spikes(c.n)
		if tasks != c.tasks || extra != c.extra {
			t.Errorf("%s: Spikes = %d tasks, %d ns; want %d, %d", c.name, tasks, extra, c.tasks, c.extra)
		}
	}
}
