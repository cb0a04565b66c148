package report

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
