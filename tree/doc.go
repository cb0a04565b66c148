// Package tree holds prophet's program tree: the node model (Root, Sec,
// Task, U, L), its online compression while recording (runs of
// same-shaped siblings and a dictionary of repeated subtrees), the
// versioned, self-checking file format, walking and totals.
//
// The tree is the single contract between profiling and everything after
// it: emulators, analyses and reports read trees, and never import the
// profiler or the annotation API.
//
// # Building
//
// A Builder turns the profiler's event stream (BeginSec, BeginTask, U, L,
// EndTask, EndSec) into a compressed tree; see Builder for the merge rules.
// Total work is kept exact up to rounding each run's mean length to whole
// nanoseconds. Trees can also be built by hand with New, Sec, Task, U, L
// and Run; Validate checks their structure.
//
// # Reading
//
// A Node may stand for Count consecutive instances (a run), and one *Node
// may be shared by several parents (the dictionary), so a tree is a DAG
// with counts. Walk visits it once per parent edge without expanding runs;
// Node.Expanded yields a node's children with runs expanded; Distinct
// visits each node once. Work and Tree.Totals take time linear in the
// compressed tree, not in the expanded one. Trees are read-only once built.
//
// # Files
//
// Write, Read, WriteFile and ReadFile store a tree in the .ppt format (see
// FormatVersion): magic, version, payload length and CRC-32, then a node
// table in which each distinct node appears once, so sharing survives the
// round trip. Read rejects truncated, corrupted, foreign and structurally
// invalid input with a one-sentence error and never panics.
//
// # Views
//
// WriteText prints a tree for people; JSON returns a View for
// encoding/json (the `prophet tree --format text|json` output).
package tree
