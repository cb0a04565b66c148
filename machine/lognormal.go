package machine

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// LogNormal returns the log-normal distribution whose median is p50 and
// whose 90th percentile is p90 (0 < p50 < p90): how a profile's measured
// latencies (the wake-up of an idle core, the lock hand-off, the
// machine's noise) spread, given as those two quantiles.
func LogNormal(p50, p90 float64) distuv.LogNormal {
	return distuv.LogNormal{Mu: math.Log(p50), Sigma: math.Log(p90/p50) / distuv.UnitNormal.Quantile(0.9)}
}
