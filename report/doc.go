// Package report turns prophet's results into things people read:
// tables, JSON and CSV of predictions (table.go), the work/span analysis
// and what-if comparisons as text (analysis.go), speedup curves and
// factored speedup plots as SVG drawn with gonum.org/v1/plot (plot.go),
// one self-contained HTML page with all of it (html.go), and
// trace-event timelines (trace.go).
//
// The package computes no predictions: it formats what the emulators
// (package emulate) and the analyses (package analyze) produced.
//
// The HTML report is a single file with inline CSS and inline SVG and no
// scripts, fonts or images fetched from anywhere, so it opens the same
// with no network.
package report
