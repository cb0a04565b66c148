package affinity

import (
	"runtime"
	"slices"
	"testing"
)

// TestPin pins the test's thread and undoes it; where the system binds
// threads, the CPU it names is one of CPUs().
func TestPin(t *testing.T) {
	cpu, unpin, note := Pin()
	defer unpin()
	cpus := CPUs()
	if runtime.GOOS != "linux" {
		if cpu != -1 || note == "" || cpus != nil {
			t.Errorf("Pin() = %d, %q; CPUs() = %v", cpu, note, cpus)
		}
		return
	}
	if note != "" {
		t.Skipf("not pinned here: %s", note)
	}
	if !slices.Contains(cpus, cpu) {
		t.Errorf("pinned to CPU %d, not among %v", cpu, cpus)
	}
	if why := PinThread(cpu); why != "" {
		t.Errorf("PinThread(%d): %s", cpu, why)
	}
}
