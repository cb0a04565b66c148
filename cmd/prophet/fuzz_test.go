package main

import (
	"strings"
	"testing"
)

// FuzzArgs parses command lines made from the input in check-only mode
// (nothing is read, measured or run): whatever the words, prophet ends
// with status 0, 1 or 2 and never a panic.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		"predict lu.ppt --threads 1-4,8 --schedule static:2,dynamic:1",
		"predict lu.ppt --threads 1,,2",
		"predict --threads -1 x",
		"validate --samples 0 --threads 99999",
		"demo --scale NaN",
		"whatif x --faster 0.5",
		"run -o x -- go run ./y",
		"race --format json -- ./p",
		"report x -o y --budget -5",
		"calibrate --overheads -o",
		"help predict",
		"tree x --format=json --threads=1-1024",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		code, _, stderr := prophetWith(&env{checkOnly: true, measure: fakeMachine}, args...)
		if code < 0 || code > 2 {
			t.Fatalf("prophet %q: status %d", args, code)
		}
		if strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine 1 [") {
			t.Fatalf("prophet %q: %s", args, stderr)
		}
	})
}
