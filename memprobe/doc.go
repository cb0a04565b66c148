// Package memprobe measures, without hardware counters, what prophet's
// memory model needs to know of a serial program's top-level sections:
// how much each slows down when other cores take memory bandwidth, and
// how much bandwidth it takes from them.
//
// The method follows Eklöv, Nikoleris, Black-Schaffer and Hagersten's
// Bandwidth Bandit (PACT 2012): while some of the serial program's
// sections run, stream through memory on other cores with "bandits"
// (package internal/bandit) that take a known amount of bandwidth and
// barely touch the shared cache. A parallel section is t copies of the
// same work sharing one memory system, so what a section meets beside
// bandits is what it would meet beside its own copies:
//
//   - its slowdown beside j bandits, against the same work alone: a
//     later run beside bandits against the runs of the same section
//     just before and after it, which run alone; the first run of each
//     section (which may be its only one) in blocks of its tasks of at
//     least BlockNs, alone and beside bandits in turn, a block beside
//     bandits against the blocks around it, task for task;
//   - its share: how much it slowed the bandits, against how much one
//     more bandit slows them, in bandits: a streaming loop takes about
//     1, a loop that computes in registers about 0. The bandits alone,
//     j and j+1 of them, are measured right after a run or block beside
//     j bandits (the program waits meanwhile, at most once a second for
//     each j), so that the reference is taken on the machine as it was
//     for the run: a shared machine's bandwidth moves by a third from
//     one second to the next.
//
// package memmodel turns both into a burden factor β_t for t threads:
// the slowdown beside (t−1)·share bandits.
//
// The probe runs beside the recording of the program (prophet run), or
// on its own (annotate.Probe). Beside a recording, the time the probe
// keeps the program waiting (starting and stopping bandits, the
// references) is held out of the recording (Holder), and Correct takes
// the slowdown its bandits caused back out of the recorded runs they
// streamed beside. It measures only a part of each section's runs
// beside bandits (one later run in four, at most MaxProbed per
// configuration, none after a run shorter than MinRunNs; at most
// MaxBlocks blocks of a first run per configuration), so that it adds a
// few percent to the recording. Where it cannot measure (one core, a CPU
// quota of less than two, the bandits starved of CPU, sections too
// short), it says so in Raw.Note and the model stays off for the
// sections it could not measure.
package memprobe
