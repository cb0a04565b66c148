package racereport

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the result for a person: each race with its two
// sites, the tasks that reached them and the locks, then the sections
// not checked. rel shortens file paths (nil: as they are).
func (r *Result) WriteText(w io.Writer, rel func(string) string) error {
	if rel == nil {
		rel = func(s string) string { return s }
	}
	var b strings.Builder
	switch len(r.Races) {
	case 0:
		fmt.Fprintf(&b, "no apparent races between the %d tasks checked (for this input)\n", r.Tasks)
	default:
		fmt.Fprintf(&b, "%d apparent race(s) between tasks marked parallel (for this input):\n", len(r.Races))
	}
	for i, race := range r.Races {
		fmt.Fprintf(&b, "\n%d. %s", i+1, race.Kind)
		if s := race.First.Section; s != "" && s == race.Second.Section {
			fmt.Fprintf(&b, " in section %q", s)
		}
		fmt.Fprintf(&b, " (%d report(s))\n", race.Reports)
		for _, a := range []Access{race.First, race.Second} {
			op := a.Op
			if a.Map {
				op += " (map)"
			}
			fmt.Fprintf(&b, "   %-12s %s:%d  %s\n", op, rel(a.Site.File), a.Site.Line, a.Site.Func)
			fmt.Fprintf(&b, "   %-12s by %s\n", "", a.Where())
		}
		fmt.Fprintf(&b, "   locks: %s\n", race.Locks())
	}
	if len(r.Unchecked) > 0 {
		fmt.Fprintf(&b, "\nnot checked: the tasks of section(s) %s are written with TaskBegin/TaskEnd, which race mode cannot move to goroutines of their own; write them with annotate.Task or annotate.Loop to have them checked\n", quoteAll(r.Unchecked))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the result as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// ReadJSON reads a result written by WriteJSON (prophet race --format
// json).
func ReadJSON(r io.Reader) (*Result, error) {
	var res Result
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("not the JSON of prophet race --format json: %w", err)
	}
	return &res, nil
}
