package par

import (
	"runtime"
	"testing"

	"github.com/parallel-prophet/prophet/internal/spin"
)

// BenchmarkForkJoin is the cost of one empty parallel loop with a team of
// 2 (start one goroutine, run nothing, join): the fork/join cost.
func BenchmarkForkJoin(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, s := range []Schedule{{Policy: Static}, {Policy: Dynamic, Chunk: 1}} {
		b.Run(s.String(), func(b *testing.B) {
			for b.Loop() {
				For(2, 2, s, func(int) {})
			}
		})
	}
}

// BenchmarkChunk is the per-chunk cost of dynamic:1 with an empty body at
// 2 threads (ns/op is per chunk: n = b.N iterations), with static and
// static:1 for comparison (no shared counter).
func BenchmarkChunk(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, s := range []Schedule{{Policy: Dynamic, Chunk: 1}, {Policy: Static}, {Policy: StaticChunk, Chunk: 1}} {
		b.Run(s.String(), func(b *testing.B) {
			b.ResetTimer()
			For(b.N, 2, s, func(int) {})
		})
	}
}

// BenchmarkSpawn is the cost per task of spawn with an empty body (ns/op
// is per goroutine started and joined).
func BenchmarkSpawn(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	b.ResetTimer()
	For(b.N, 2, Schedule{Policy: Spawn}, func(int) {})
}

// BenchmarkChunkBody is the cost per iteration of a loop whose body, as
// validate's generated fine-grained loops do, loads its item from a large
// slice and spins twice for the lengths it holds (about 50 ns in all), on
// one thread, for each schedule (ns/op is per iteration): what a chunk
// costs beside a body, which an empty body does not show.
func BenchmarkChunkBody(b *testing.B) {
	items := make([][2]int64, 1<<20)
	for i := range items {
		items[i] = [2]int64{20 + int64(i%11), 20 + int64(i%7)}
	}
	for _, s := range []Schedule{{Policy: Static}, {Policy: StaticChunk, Chunk: 1}, {Policy: StaticChunk, Chunk: 4}, {Policy: Dynamic, Chunk: 1}} {
		b.Run(s.String(), func(b *testing.B) {
			b.ResetTimer()
			For(b.N, 1, s, func(i int) {
				it := items[i&(len(items)-1)]
				spin.For(it[0])
				spin.For(it[1])
			})
		})
	}
}
