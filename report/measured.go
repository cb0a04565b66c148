package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Measured is a real program's speedup curve, measured by prophet
// measure: the program run with GOMAXPROCS at each thread count, in
// rounds, each point the median of its runs. Speedups are over the
// program's own 1-thread run (its first thread count's).
type Measured struct {
	// Program is the command line measured.
	Program string `json:"program"`
	// Points are the thread counts, in increasing order.
	Points []MeasuredPoint `json:"points"`
	// OthersCores is how many cores other programs kept busy on average
	// while the runs were timed; Disturbed is set when that was a
	// quarter of a core or more, and the curve then measures that
	// contention as much as the program.
	OthersCores float64 `json:"others_cores"`
	Disturbed   bool    `json:"disturbed"`
}

// MeasuredPoint is one thread count of a Measured curve.
type MeasuredPoint struct {
	Threads int `json:"threads"`
	// MedianNs is the median wall time of the runs, Spread their
	// (max − min) / median, Rounds how many.
	MedianNs float64 `json:"median_ns"`
	Spread   float64 `json:"spread"`
	Rounds   int     `json:"rounds"`
	// Speedup is the base thread count's median over this one's; Low
	// and High the lowest and highest of the rounds' speedups.
	Speedup float64 `json:"speedup"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
}

// ReadMeasured reads a curve written as JSON by prophet measure -o.
func ReadMeasured(r io.Reader) (*Measured, error) {
	var m Measured
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a curve from prophet measure -o: %w", err)
	}
	if len(m.Points) == 0 {
		return nil, errors.New("not a curve from prophet measure -o: no points")
	}
	return &m, nil
}

// WriteMeasuredTable writes a curve as a table: each thread count's
// median, speedup, the rounds' range, spread and rounds, then what the
// speedups are over and whether the runs were disturbed.
func WriteMeasuredTable(w io.Writer, c *Measured) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\tmedian\tspeedup\trounds' range\tspread\trounds\t")
	for _, p := range c.Points {
		fmt.Fprintf(tw, "%d\t%v\t%.2f\t%.2f-%.2f\t%.0f%%\t%d\t\n", p.Threads, time.Duration(p.MedianNs).Round(time.Millisecond),
			p.Speedup, p.Low, p.High, 100*p.Spread, p.Rounds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.Points) > 0 {
		ew.printf("\nspeedups of %s over its own run at %d thread(s)\n", c.Program, c.Points[0].Threads)
	}
	if c.Disturbed {
		ew.printf("disturbed: other programs kept %.1f cores busy while the runs were timed, so the curve measures that contention as much as the program\n", c.OthersCores)
	}
	return ew.err
}
