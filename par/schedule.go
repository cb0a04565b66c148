package par

import (
	"fmt"
	"strconv"
	"strings"
)

// Policy is how the iterations of a parallel loop are handed to threads.
type Policy uint8

// The scheduling policies. Static, StaticChunk, Dynamic and Guided follow
// OpenMP's schedule clause; Spawn, Pool and Errgroup are Go's own idioms:
// one goroutine per task, a worker pool draining a channel, and a
// goroutine per task with a limit on how many run at once.
const (
	// Static splits the n iterations into t nearly equal contiguous
	// blocks, block i to thread i (OpenMP schedule(static)).
	Static Policy = iota
	// StaticChunk deals chunks of Chunk iterations round-robin: chunk k
	// to thread k mod t (OpenMP schedule(static,C)).
	StaticChunk
	// Dynamic hands the next chunk of Chunk iterations to the first free
	// thread (OpenMP schedule(dynamic,C)).
	Dynamic
	// Guided hands the first free thread a chunk of
	// max(Chunk, ceil(remaining/t)) iterations (OpenMP schedule(guided,C)).
	Guided
	// Spawn starts one goroutine per iteration and waits for all of
	// them; the Go scheduler runs them on t cores.
	Spawn
	// Pool is the worker-pool idiom: the caller sends every iteration's
	// index into a buffered channel and closes it, t goroutines drain
	// it (a channel receive per iteration), and the caller waits for
	// them.
	Pool
	// Errgroup starts one goroutine per iteration with at most t
	// running at once, the caller blocking while t are busy: an
	// errgroup.Group with SetLimit(t) (golang.org/x/sync/errgroup).
	Errgroup
)

// Schedule is a policy with its chunk size.
type Schedule struct {
	Policy Policy
	// Chunk is the chunk size C for StaticChunk, Dynamic and Guided
	// (at least 1); zero for Static and Spawn.
	Chunk int
}

// String returns the schedule in the form ParseSchedule reads:
// "static", "static:4", "dynamic:1", "guided:2", "spawn", "pool" or
// "errgroup".
func (s Schedule) String() string {
	switch s.Policy {
	case Static:
		return "static"
	case StaticChunk:
		return "static:" + strconv.Itoa(s.Chunk)
	case Dynamic:
		return "dynamic:" + strconv.Itoa(s.Chunk)
	case Guided:
		return "guided:" + strconv.Itoa(s.Chunk)
	case Spawn:
		return "spawn"
	case Pool:
		return "pool"
	case Errgroup:
		return "errgroup"
	}
	return fmt.Sprintf("Policy(%d)", s.Policy)
}

// ParseSchedule reads a schedule written as "static", "static:C",
// "dynamic[:C]", "guided[:C]", "spawn", "pool" or "errgroup" (C ≥ 1;
// dynamic and guided default to C = 1).
func ParseSchedule(s string) (Schedule, error) {
	name, chunkText, hasChunk := strings.Cut(strings.TrimSpace(strings.ToLower(s)), ":")
	chunk := 1
	if hasChunk {
		c, err := strconv.Atoi(chunkText)
		if err != nil || c < 1 {
			return Schedule{}, fmt.Errorf("schedule %q: chunk size must be a whole number ≥ 1", s)
		}
		chunk = c
	}
	switch name {
	case "static":
		if !hasChunk {
			return Schedule{Policy: Static}, nil
		}
		return Schedule{Policy: StaticChunk, Chunk: chunk}, nil
	case "dynamic":
		return Schedule{Policy: Dynamic, Chunk: chunk}, nil
	case "guided":
		return Schedule{Policy: Guided, Chunk: chunk}, nil
	case "spawn", "pool", "errgroup":
		if hasChunk {
			return Schedule{}, fmt.Errorf("schedule %q: %s takes no chunk size", s, name)
		}
		return Schedule{Policy: map[string]Policy{"spawn": Spawn, "pool": Pool, "errgroup": Errgroup}[name]}, nil
	}
	return Schedule{}, fmt.Errorf("unknown schedule %q (want static, static:C, dynamic:C, guided:C, spawn, pool or errgroup)", s)
}

// ParseSchedules reads a comma-separated list of schedules.
func ParseSchedules(list string) ([]Schedule, error) {
	var out []Schedule
	for _, f := range strings.Split(list, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		s, err := ParseSchedule(f)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no schedule given")
	}
	return out, nil
}

// StaticChunks calls fn(worker, lo, hi) for every chunk [lo, hi) that a
// static or static:C schedule assigns, in the order worker w would run
// its own chunks. It is the single definition of static assignment, used
// by For and by the emulators. For other policies it panics.
func (s Schedule) StaticChunks(n, threads int, fn func(worker, lo, hi int)) {
	switch s.Policy {
	case Static:
		// OpenMP static: t nearly equal contiguous blocks; the first
		// n mod t blocks get one more iteration.
		q, r := n/threads, n%threads
		lo := 0
		for w := 0; w < threads; w++ {
			size := q
			if w < r {
				size++
			}
			if size > 0 {
				fn(w, lo, lo+size)
			}
			lo += size
		}
	case StaticChunk:
		c := s.Chunk
		if c < 1 {
			c = 1
		}
		for w := 0; w < threads; w++ {
			for lo := w * c; lo < n; lo += threads * c {
				fn(w, lo, min(lo+c, n))
			}
		}
	default:
		panic("par: StaticChunks called for non-static schedule " + s.String())
	}
}

// PerTask reports whether s runs every iteration on a goroutine of its
// own (Spawn, Errgroup) rather than on a team of workers.
func (s Schedule) PerTask() bool { return s.Policy == Spawn || s.Policy == Errgroup }

// GuidedChunk returns the size of the next guided chunk when remaining
// iterations are left for threads threads: max(C, ceil(remaining/threads)),
// never more than remaining.
func (s Schedule) GuidedChunk(remaining, threads int) int {
	c := (remaining + threads - 1) / threads
	if c < s.Chunk {
		c = s.Chunk
	}
	if c > remaining {
		c = remaining
	}
	return c
}

// WorkerChunks calls fn(lo, hi) for every chunk [lo, hi) that a static or
// static:C schedule assigns to worker of a team of threads, in the order
// the worker runs them: the same assignment as StaticChunks, for one
// worker, without visiting the other workers' chunks. For other policies
// it panics.
func (s Schedule) WorkerChunks(n, threads, worker int, fn func(lo, hi int)) {
	first, size, step := s.workerStride(n, threads, worker)
	for lo := first; lo < n; lo += step {
		if hi := min(lo+size, n); lo < hi {
			fn(lo, hi)
		}
	}
}

// workerStride returns worker's share of a static or static:C loop of n
// iterations on a team of threads, as WorkerChunks visits it: chunks of
// size iterations (the last one cut at n) starting at first and every
// step iterations after. A static worker has one block (step n, size 0
// where the worker has none). For other policies it panics (For never
// asks it of them).
func (s Schedule) workerStride(n, threads, worker int) (first, size, step int) {
	switch s.Policy {
	case Static:
		q, r := n/threads, n%threads
		size = q
		if worker < r {
			size++
		}
		return worker*q + min(worker, r), size, max(n, 1)
	case StaticChunk:
		c := max(s.Chunk, 1)
		return worker * c, c, threads * c
	}
	panic("par: WorkerChunks called for non-static schedule " + s.String())
}
