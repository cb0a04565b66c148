package memmodel

import (
	"testing"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

// BenchmarkBurden is the cost of one β_t through ForTree's function, as
// the emulators call it per section and thread count.
func BenchmarkBurden(b *testing.B) {
	sec := tree.Sec("s", tree.Task("t", tree.U(1)))
	sec.Counters = &paperCounters
	m := PaperMachine()
	p := machine.Default()
	p.Memory = &m
	burden, _ := ForTree(tree.New(sec), p, Auto)
	var sum float64
	for i := 0; b.Loop(); i++ {
		sum += burden(sec, 2+i%11)
	}
	if sum < float64(b.N) {
		b.Fatal("β below 1")
	}
}
