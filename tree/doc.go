// Package tree holds prophet's program tree: the node model (Root, Sec,
// Task, U, L), its online compression while recording (runs of
// same-shaped siblings and a dictionary of repeated subtrees), the
// versioned, self-checking file format, walking and totals.
//
// The tree is the single contract between profiling and everything after
// it: emulators, analyses and reports read trees, and never import the
// profiler or the annotation API.
package tree
