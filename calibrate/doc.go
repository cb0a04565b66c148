// Package calibrate measures the machine profile that `prophet calibrate`
// writes (package machine): the memory-traffic fits of the paper's section
// V-D, the goroutine overheads the fast-forward emulator charges, and the
// synthesizer's walk costs, so that one JSON file describes the machine.
//
// The memory microbenchmark (MeasureMemory) streams memory at controlled
// rates: each worker reads one word per cache line of its own buffer, far
// larger than the last-level cache, with a number of register-only spin
// rounds between loads (the traffic level). For every level it measures
// the traffic of one worker alone, δ, and the total traffic of t workers
// at once for every t up to the core count; Ψ_t is fitted to the points
// (δ, total_t) in linear and logarithmic form, and the form with the
// better R² is kept. The stall cost per DRAM access, ω, is the time per
// line minus the time per line of the same loop over a cache-resident
// buffer, in cycles; Φ is a power law ω = A·(δ^t)^B fitted by log-log
// regression over every run, t workers each making δ^t. Traffic is counted
// from the bytes the benchmark itself loads, so calibration needs no
// hardware counters. Fits use gonum/stat.
//
// Run does the whole calibration with progress bars: system facts, the
// memory fits, the goroutine overheads (MeasureOverheads) and the
// synthesizer's walk costs (a hook in Options, for syn.MeasureWalk).
package calibrate
