//go:build race

package annotate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRaceModeRaceFree runs race-free shapes in race mode in this test
// binary, built with -race: any race the detector saw would fail the
// test. (Planted races are found by cmd/prophet's tests, in programs of
// their own: a race fails the binary that has it.)
func TestRaceModeRaceFree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "race.log")
	if err := startRace(path); err != nil {
		t.Fatal(err)
	}
	defer func() { raceOn = false }()

	rows := make([][]int, 4)
	total := 0
	Loop("outer", len(rows), func(i int) {
		rows[i] = make([]int, 4)
		Loop("inner", 4, func(j int) { rows[i][j] = i * j })
		Lock(1, func() { total += rows[i][3] })
	})
	var fib func(n int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		var a, b int
		SecBegin("fib")
		Task("a", func() { a = fib(n - 1) })
		Task("b", func() { b = fib(n - 2) })
		SecEnd(false)
		return a + b
	}
	if got := fib(8); got != 21 {
		t.Errorf("fib(8) = %d in race mode, want 21", got)
	}
	if total != 0+3+6+9 {
		t.Errorf("total = %d, want 18", total)
	}
	x := 0
	SecBegin("nowait")
	Task("w", func() { x = 1 })
	SecEnd(true)
	SecBegin("after")
	Task("r", func() {})
	SecEnd(false) // joins the nowait section's task
	if x != 1 {
		t.Errorf("x = %d", x)
	}
	SecBegin("old")
	TaskBegin("t")
	TaskEnd()
	SecEnd(false)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{"race ", `"outer" "outer"`, `"outer/inner" "inner"`, `"fib/fib" "a"`, `unchecked "old"`, "race_test.go"} {
		if !strings.Contains(log, want) {
			t.Errorf("race log lacks %q:\n%s", want, log)
		}
	}
}
