package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseThreads reads a comma-separated list of thread counts (ranges like
// 1-8 allowed), each between 1 and 1024.
func parseThreads(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no thread count given")
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("%q has an empty item: want counts such as 1,2,4 or a range such as 1-8", s)
		}
		if n, err := strconv.Atoi(f); err == nil && n < 1 {
			return nil, fmt.Errorf("thread count %d is out of range (1 to 1024)", n)
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("thread count %q is not a number", f)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("thread range %q is not of the form LOW-HIGH", f)
			}
		}
		for t := a; t <= b; t++ {
			if t < 1 || t > 1024 {
				return nil, fmt.Errorf("thread count %d is out of range (1 to 1024)", t)
			}
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no thread count given")
	}
	return out, nil
}
