// Package memprobe measures, without hardware counters, what prophet's
// memory model needs to know of a serial program's top-level sections:
// how much each slows down when other cores take memory bandwidth, and
// how much bandwidth it takes from them.
//
// The method follows Eklöv, Nikoleris, Black-Schaffer and Hagersten's
// Bandwidth Bandit (PACT 2012): run the program once more, serially, and
// while some of its sections run, stream through memory on other cores
// with "bandits" (package internal/bandit) that take a known amount of
// bandwidth and barely touch the shared cache. A parallel section is t
// copies of the same work sharing one memory system, so what a section
// meets beside bandits is what it would meet beside its own copies:
//
//   - its slowdown beside j bandits, against the runs of the same
//     section around it that ran alone (or, for a section run once, the
//     recording's time for it);
//   - its share: how much it slowed the bandits, against how much one
//     more bandit slows them, in bandits: a streaming loop takes about
//     1, a loop that computes in registers about 0. The bandits alone,
//     j and j+1 of them, are measured right after each run beside j
//     bandits (the program waits meanwhile), so that the reference is
//     taken on the machine as it was for the run: a shared machine's
//     bandwidth moves by a third from one second to the next.
//
// package memmodel turns both into a burden factor β_t for t threads:
// the slowdown beside (t−1)·share bandits.
//
// The probe's run measures only a part of each section's runs beside
// bandits (one in four, at most MaxProbed per bandit count, none shorter
// than MinRunNs), so that it costs about one more run of the program.
// Where it cannot measure (one core, a CPU quota of less than two, the
// bandits starved of CPU), it says so in Raw.Note and the model stays
// off for the sections it could not measure.
package memprobe
