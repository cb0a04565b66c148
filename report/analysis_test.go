package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/analyze"
	"github.com/parallel-prophet/prophet/machine"
)

// TestAnalysisTableWakeChain checks that the analysis table names the
// wake chain, and the team starts on the path it is charged for, only
// where the machine profile has a wake step.
func TestAnalysisTableWakeChain(t *testing.T) {
	for _, tc := range []struct {
		step float64
		want string // "" for no wake chain line
	}{
		{0, ""},
		{6500, "wake chain   6.5 µs a thread beyond two at each team start, 2 on the path"},
	} {
		a, err := analyze.Analyze(sampleTree(), analyze.Options{Overheads: machine.Overheads{WakeStepNs: tc.step}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteAnalysisTable(&buf, a, 0); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		if tc.want == "" && strings.Contains(got, "wake chain") {
			t.Errorf("step 0: the table names a wake chain:\n%s", got)
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("step %v: no line %q in:\n%s", tc.step, tc.want, got)
		}
	}
}
