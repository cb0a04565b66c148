// Package bandit runs memory-bandwidth generators, "bandits" after Eklöv
// et al.'s Bandwidth Bandit (PACT 2012): threads that stream through
// buffers far larger than the last-level cache, loading one word per
// cache line, so that they take memory bandwidth from whatever else runs
// while touching the shared cache as little as a stream can.
//
// calibrate's memory benchmark uses them to measure the machine's
// bandwidth curve, and package memprobe runs them beside a serial
// program's sections to measure how much those sections slow down when
// other cores take bandwidth, and how much bandwidth they take.
//
// A Gang keeps its bandits parked on threads of their own (pinned to
// given CPUs where the system allows), so that starting and stopping
// them around a section costs microseconds, not thread creation.
package bandit
