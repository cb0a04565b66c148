package tree

import (
	"hash/crc32"
	"math/rand/v2"
)

// jitter draws lengths uniformly within ±5% of a base, reproducibly.
type jitter struct{ r *rand.Rand }

func newJitter(seed uint64) *jitter { return &jitter{rand.New(rand.NewPCG(seed, 42))} }

func (j *jitter) next(base int64) int64 {
	return base + int64((j.r.Float64()*2-1)*0.05*float64(base))
}

func feedU(b *Builder, ns int64) int64         { b.U(ns); return ns }
func feedL(b *Builder, id int, ns int64) int64 { b.L(id, ns); return ns }

func crc32IEEE(p []byte) uint32 { return crc32.ChecksumIEEE(p) }
