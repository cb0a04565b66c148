package ff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestReadyQueuePure checks the ready queue's account of its fresh
// goroutines of pure tasks (allPure) against going through the queue,
// over random pushes (fresh entries of pure and other tasks, of two
// teams, and goroutines at either end) and pops: allPure says whether
// every entry is a fresh goroutine of a pure task of the team, and its
// work is never above the least work queued.
func TestReadyQueuePure(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	teams := []*team{{}, {}}
	runs := []*taskRun{{pure: true, work: 300}, {pure: true, work: 120}, {pure: true, work: 900}, {pure: false, work: 200}}
	var q readyQueue
	for step := 0; step < 20000; step++ {
		switch x := rng.IntN(10); {
		case x < 5:
			r := runs[rng.IntN(len(runs))]
			tm := teams[0]
			if rng.IntN(20) == 0 {
				tm = teams[1]
			}
			q.push(readyEntry{run: r, team: tm, n: 1 + rng.Int64N(3)}, false)
		case x == 5:
			q.pushBack(&gor{})
		case x == 6:
			q.pushFront(&gor{})
		case x == 7 && rng.IntN(50) == 0:
			q.clear()
		default:
			if q.entries.len() > 0 {
				q.dropFront(q.at(0).count())
			}
		}
		for _, tm := range teams {
			want, least := q.entries.len() > 0, math.Inf(1)
			for i := 0; i < q.entries.len(); i++ {
				e := q.at(i)
				if !freshPure(e, tm) {
					want = false
					break
				}
				least = min(least, e.run.work)
			}
			got, work := q.allPure(tm)
			if got != want {
				t.Fatalf("step %d: allPure = %v, going through the queue says %v", step, got, want)
			}
			if got && work > least {
				t.Fatalf("step %d: work %v above the least queued, %v", step, work, least)
			}
		}
	}
}
