package analyze

import (
	"testing"
	"time"

	"github.com/parallel-prophet/prophet/tree"
)

// TestManyLockIDsFast: a loop whose 100,000 tasks each take a lock of
// their own analyzes in well under a second (it was quadratic).
func TestManyLockIDsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("times a large analysis")
	}
	const n = 100_000
	tasks := make([]*tree.Node, n)
	for i := range tasks {
		tasks[i] = tree.Task("bucket", tree.U(100), tree.L(i, 10))
	}
	tr := tree.New(tree.Sec("histogram", tasks...))
	start := time.Now()
	a, err := Analyze(tr, Options{Threads: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	if len(a.Locks) != n || a.Locks[0].HeldNs != 10 {
		t.Fatalf("%d locks, the longest held %d ns; want %d, 10", len(a.Locks), a.Locks[0].HeldNs, n)
	}
	// Generous for a shared 2-core machine: the quadratic version took
	// over a minute here.
	if d > 10*time.Second {
		t.Errorf("analyzing %d lock ids took %v", n, d)
	}
	t.Logf("%d lock ids analyzed in %v", n, d)
}
