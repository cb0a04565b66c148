package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Sweep is "what to optimize first": for every region, the program's
// predicted speedup over today's serial run if the region were changed
// in each of a few ways, at one thread count and schedule, ranked by the
// best of them.
type Sweep struct {
	// Emulator, Schedule and Threads are what every prediction used.
	Emulator string `json:"emulator"`
	Schedule string `json:"schedule"`
	Threads  int    `json:"threads"`
	// Base is the predicted speedup with nothing changed.
	Base float64 `json:"base"`
	// Changes name the columns ("10% faster", "split 8 ways").
	Changes []string `json:"changes"`
	// Rows are the regions, the largest predicted gain first.
	Rows []SweepRow `json:"rows"`
}

// SweepRow is one region of a Sweep.
type SweepRow struct {
	Region string `json:"region"`
	// Speedups holds the predicted speedup under each change, NaN where
	// the change does not apply to the region (a region with no serial
	// computation of its own to split).
	Speedups []float64 `json:"speedups"`
	// Best is the largest of Speedups.
	Best float64 `json:"best"`
}

// WriteSweepTable writes the sweep as a table: one row per region, the
// predicted speedup and its gain over Base under each change.
func WriteSweepTable(w io.Writer, s Sweep) error {
	ew := &errWriter{w: w}
	ew.printf("what to optimize first: predicted speedup over today's serial run at %d threads (%s, %s) if a region changed; unchanged %.2f\n\n", s.Threads, s.Emulator, s.Schedule, s.Base)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "region\t")
	for _, c := range s.Changes {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for _, r := range s.Rows {
		fmt.Fprintf(tw, "%s\t", r.Region)
		for _, v := range r.Speedups {
			fmt.Fprintf(tw, "%s\t", sweepCell(v, s.Base))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ew.printf("\nthe first row is the region whose change gains most; try prophet whatif --region on it\n")
	return ew.err
}

// sweepCell formats a speedup and its gain over base.
func sweepCell(v, base float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if base <= 0 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2f (%+.0f%%)", v, 100*(v-base)/base)
}
