package tree

import (
	"cmp"
	"slices"
)

// Spike thresholds: a task recorded at least spikeFactor times the
// median task of its section and at least spikeMinNs longer (a timer
// interrupt or a garbage collection takes microseconds) looks struck by
// a hiccup.
const (
	spikeFactor = 3
	spikeMinNs  = 5000
)

// Spikes counts the task instances of n's sections that look struck by a
// hiccup while they were recorded: a recording measures wall time, so an
// interrupt or a garbage collection that comes while a task runs is
// counted as the task's work. A task whose length is at least three
// times the median task of its section, and at least 5 µs more, counts;
// excessNs is their time beyond that median, all instances included. One
// recording cannot tell such a task from one that really did more work,
// which is why the count is a hint: pooled recordings (prophet run
// --repeat) take every task at the length the recordings agree on. Spikes
// takes time linear in the compressed tree.
func Spikes(n *Node) (tasks, excessNs int64) {
	type sp struct{ tasks, excess int64 }
	memo := map[*Node]sp{}
	var wm WorkMemo
	var walk func(n *Node) sp
	walk = func(n *Node) sp {
		if n.Kind.IsLeaf() {
			return sp{}
		}
		if n.id != 0 {
			if s, ok := memo[n]; ok {
				return s
			}
		}
		var s sp
		if n.Kind == KindSec {
			type tw struct{ work, count int64 }
			var ts []tw
			var total int64
			for _, c := range n.Children {
				if c.Kind == KindTask {
					ts = append(ts, tw{wm.Work(c) / c.Reps(), c.Reps()})
					total += c.Reps()
				}
			}
			if total > 0 {
				slices.SortFunc(ts, func(a, b tw) int { return cmp.Compare(a.work, b.work) })
				var med int64
				for seen, i := int64(0), 0; i < len(ts); i++ {
					if seen += ts[i].count; 2*seen > total {
						med = ts[i].work
						break
					}
				}
				for _, t := range ts {
					if t.work >= spikeFactor*med && t.work-med >= spikeMinNs {
						s.tasks += t.count
						s.excess += (t.work - med) * t.count
					}
				}
			}
		}
		for _, c := range n.Children {
			cs := walk(c)
			s.tasks += cs.tasks * c.Reps()
			s.excess += cs.excess * c.Reps()
		}
		if n.id != 0 {
			memo[n] = s
		}
		return s
	}
	s := walk(n)
	return s.tasks * n.Reps(), s.excess * n.Reps()
}
