// Package memmodel is prophet's memory performance model (section V of the
// Parallel Prophet paper): from the hardware counters of one top-level
// section of a serial run (N instructions, T cycles, D last-level-cache
// misses, the wall time) and the machine profile's memory fits, it computes
// the burden factor β_t that stretches every U and L node of the section
// to model the memory-bandwidth contention a t-thread version would meet.
//
// The equations, with the paper's numbering:
//
//	(1) T = CPI$·N + ω·D                  so CPI$ = (T − ω·D) / N
//	(3) β_t = (CPI$ + MPI·ω^t) / (CPI$ + MPI·ω),   MPI = D / N
//	(4) δ^t = Ψ_t(δ)                      per-thread traffic with t threads
//	(5) ω^t = Φ(δ^t)                      stall cycles per DRAM access
//	(6) Ψ_t as fitted: total traffic of t threads over t
//	(7) Φ(x) = A·x^B                      (paper: 101481·x^−0.964)
//
// δ, the single-thread DRAM traffic in MB/s (10^6 bytes per second), is
// D·lineSize divided by the section's wall time; ω = Φ(δ).
//
// Assumption 5 of the paper: β_t is never below 1, and it is exactly 1
// when MPI < 0.001 or δ is below the range the fits were made over
// (Memory.MinTrafficMBs, and each Ψ fit's MinX). Where the counters lack
// the cycle count T, it is TimeNs·FreqGHz; where they lack the time, it
// is T/FreqGHz.
//
// Thread counts without their own Ψ fit: Ψ_1 is the identity; between two
// calibrated counts t1 < t < t2 the total traffic is interpolated linearly
// in t between Ψ_t1(δ) and Ψ_t2(δ); above the largest calibrated count
// tmax, the per-thread traffic of tmax is used (so β_t = β_tmax: the
// model claims no contention it never measured).
//
// Φ is evaluated at δ^t even where δ^t falls below the range Φ was fitted
// over (the paper's own δ^12 does at moderate traffic): contention lowers
// the per-thread traffic, and the model's point is to say what that costs.
//
// ForTree wraps all this for the emulators (emulate.Options.Burden) and
// says, in one sentence, whether the model was applied and why not.
package memmodel
