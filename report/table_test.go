package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/par"
)

// estimated returns predictions of ff static at 1 and 2 threads, the
// second an estimate from a sample (emulate.Result.Sampled).
func estimated() *Predictions {
	st := par.Schedule{Policy: par.Static}
	return &Predictions{
		Profile:  "loop.ppt",
		SerialNs: 8e8,
		Notes:    []string{"estimated, over their share of the emulation budget: ff static at 2 threads"},
		Results: []emulate.Result{
			{Emulator: "ff", Schedule: st, Threads: 1, SerialNs: 8e8, ParallelNs: 8e8, Speedup: 1},
			{Emulator: "ff", Schedule: st, Threads: 2, SerialNs: 8e8, ParallelNs: 1.25e9, Speedup: 0.64, Sampled: true},
		},
	}
}

// ExamplePredictions_WriteTable shows an estimate from a sample of the
// program's large sections, marked with a tilde.
func ExamplePredictions_WriteTable() {
	if err := estimated().WriteTable(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	//   threads  ff static
	//         1       1.00
	//         2      0.64~
	// ~ estimated from a sample of the program's large sections (see the notes below).
	//
	// Speedups over the serial time 800 ms.
	// Estimated, over their share of the emulation budget: ff static at 2 threads.
}

// TestSampledCSVJSON checks that CSV and JSON mark the estimates.
func TestSampledCSVJSON(t *testing.T) {
	var csv bytes.Buffer
	if err := estimated().WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ",sampled") || !strings.HasSuffix(lines[1], ",false") || !strings.HasSuffix(lines[2], ",true") {
		t.Errorf("CSV %q: want a sampled column, false then true", lines)
	}
	var js bytes.Buffer
	if err := estimated().WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Predictions []map[string]any `json:"predictions"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Predictions) != 2 || doc.Predictions[0]["sampled"] != nil || doc.Predictions[1]["sampled"] != true {
		t.Errorf("JSON predictions %v: want sampled only on the estimate", doc.Predictions)
	}
}
