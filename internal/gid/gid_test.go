package gid

import (
	"sync"
	"testing"
)

func TestG(t *testing.T) {
	if !Supported {
		t.Skip("no goroutine identity on this architecture")
	}
	me := G()
	if me == 0 || G() != me {
		t.Fatalf("G() = %#x then %#x: want the same nonzero value", me, G())
	}
	// Goroutines alive together differ from each other and from this one.
	const n = 8
	ids := make([]uintptr, n)
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	release := make(chan struct{})
	for i := range n {
		go func() {
			defer done.Done()
			ids[i] = G()
			ready.Done()
			<-release // stay alive until all have read theirs
			if G() != ids[i] {
				t.Errorf("goroutine %d: G changed", i)
			}
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
	seen := map[uintptr]bool{me: true}
	for i, id := range ids {
		if seen[id] {
			t.Errorf("goroutine %d shares its identity %#x", i, id)
		}
		seen[id] = true
	}
	// A goroutine whose stack grows keeps its identity.
	var deep func(int) uintptr
	deep = func(d int) uintptr {
		var pad [256]byte
		if d == 0 {
			return G() + uintptr(pad[0])
		}
		return deep(d - 1)
	}
	if got := deep(10000); got != me {
		t.Errorf("after the stack grew G() = %#x, want %#x", got, me)
	}
}
