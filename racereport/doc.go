// Package racereport reads what a program run in annotate's race mode
// leaves behind, Go's race detector reports and annotate's log of which
// goroutine ran which task, and groups the reports into the apparent
// races between tasks marked parallel: each distinct pair of accesses
// once, with the sections and tasks they belong to, their kind
// (write/write, read/write) and whether an annotated lock covered them.
//
// Apparent races are those the parallel version of the program could
// have on the input it ran, found from one serial execution (the
// OMP-Racer idea, chapter 4 of the OMP-Adviser dissertation): race mode
// runs each task on a goroutine of its own, one after another, and hides
// the hand-offs from the detector, which then sees the tasks of a
// section as concurrent. `prophet race` runs a program that way and
// prints a Result.
package racereport
