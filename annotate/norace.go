//go:build !race

package annotate

import "os"

// raceBuild is false outside a -race build: race mode cannot run, and
// every race-mode branch of the annotation calls compiles away.
const raceBuild = false

var raceOn bool

// startRace notes in path that the program was not built with -race,
// for prophet race to say so.
func startRace(path string) error {
	return os.WriteFile(path, []byte("norace\n"), 0o644)
}

func raceSecBegin(string)          {}
func raceSecEnd(bool)              {}
func raceInline()                  {}
func raceTask(_ string, fn func()) { fn() }
func raceLockBegin(int)            {}
func raceLockEnd(int)              {}
