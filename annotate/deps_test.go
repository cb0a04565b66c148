package annotate

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies keeps what importing annotate adds to a program's
// build small: the standard library, this module's own packages and the
// modules the hardware counters need, nothing more (the README says so).
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{.Module.Path}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	allowed := []string{
		"github.com/parallel-prophet/prophet",
		"golang.org/x/sys",
		"github.com/hodgesds/perf-utils",
		"go.uber.org/atomic",
		"go.uber.org/multierr",
	}
	for _, m := range strings.Fields(string(out)) {
		if !slices.Contains(allowed, m) {
			t.Errorf("annotate depends on module %s, beyond %v", m, allowed)
		}
	}
}
