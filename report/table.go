package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/parallel-prophet/prophet/emulate"
	"github.com/parallel-prophet/prophet/memmodel"
)

// Predictions is the outcome of `prophet predict`: every prediction made,
// with what the reader needs to trust it.
type Predictions struct {
	// Profile is the profile file the predictions are for.
	Profile string
	// SerialNs is the program's serial time.
	SerialNs float64
	// Memory says whether the memory model was applied and why (one
	// sentence).
	Memory string
	// MemorySource says where the burden factors came from
	// (memmodel.Status.Source; empty when the model is off).
	MemorySource string
	// Betas are the memory burden factors of each top-level section at
	// the thread counts predicted (memmodel.Betas), nil when the model is
	// off.
	Betas []memmodel.SectionBetas
	// Notes are further one-sentence remarks (rows left out, ...).
	Notes []string
	// Results holds every prediction. When the memory model was applied
	// with a burden factor other than 1, each row appears twice: without
	// (MemoryModel false) and with it.
	Results []emulate.Result
}

// Row is one prediction as written to JSON and CSV.
type Row struct {
	Emulator    string  `json:"emulator"`
	Schedule    string  `json:"schedule"`
	Threads     int     `json:"threads"`
	Speedup     float64 `json:"speedup"`
	MemoryModel bool    `json:"memory_model"`
	ParallelNs  float64 `json:"parallel_ns"`
	// IdleNs is the factored-speedup idle time I_P (all workers, the
	// whole run), and InflationNs the work inflation F_P = P·T_P − I_P −
	// T_1 where T_1 is the same emulator's 1-thread time; both only for
	// emulators that measure them (syn).
	IdleNs      *float64 `json:"idle_ns,omitempty"`
	InflationNs *float64 `json:"inflation_ns,omitempty"`
	// Sampled marks an estimate from a sample of the program's large
	// sections (emulate.Result.Sampled).
	Sampled  bool              `json:"sampled,omitempty"`
	Sections []emulate.Section `json:"sections"`
}

// Rows returns the predictions as rows, computing the factored-speedup
// terms where the emulator measured idle time.
func (p *Predictions) Rows() []Row {
	type key struct {
		emu, sched string
		mem        bool
	}
	one := map[key]float64{}
	for _, r := range p.Results {
		if r.Threads == 1 {
			one[key{r.Emulator, r.Schedule.String(), r.MemoryModel}] = r.ParallelNs
		}
	}
	rows := make([]Row, 0, len(p.Results))
	for _, r := range p.Results {
		row := Row{
			Emulator: r.Emulator, Schedule: r.Schedule.String(), Threads: r.Threads,
			Speedup: r.Speedup, MemoryModel: r.MemoryModel, ParallelNs: r.ParallelNs,
			Sampled: r.Sampled, Sections: r.Sections,
		}
		var busy float64
		for _, s := range r.Sections {
			busy += s.BusyNs
		}
		if busy > 0 {
			base := emulate.Result{Threads: 1, SerialNs: p.SerialNs, ParallelNs: p.SerialNs}
			if t1, ok := one[key{r.Emulator, row.Schedule, r.MemoryModel}]; ok {
				base.ParallelNs = t1
			}
			if f, err := emulate.Factor(r, base); err == nil {
				row.IdleNs, row.InflationNs = &f.IP, &f.FP
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteJSON writes the predictions as one JSON object with a
// `predictions` array.
func (p *Predictions) WriteJSON(w io.Writer) error {
	notes := p.Notes
	if notes == nil {
		notes = []string{}
	}
	doc := struct {
		Profile      string                  `json:"profile"`
		SerialNs     float64                 `json:"serial_ns"`
		Memory       string                  `json:"memory_model_status"`
		MemorySource string                  `json:"memory_model_source,omitempty"`
		Betas        []memmodel.SectionBetas `json:"burden_factors,omitempty"`
		Notes        []string                `json:"notes"`
		Predictions  []Row                   `json:"predictions"`
	}{p.Profile, p.SerialNs, p.Memory, p.MemorySource, p.Betas, notes, p.Rows()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteCSV writes one line per prediction, with a header; its last
// column, sampled, marks the estimates from a sample of the program's
// large sections.
func (p *Predictions) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"emulator", "schedule", "threads", "memory_model", "speedup", "parallel_ns", "serial_ns", "sampled"})
	for _, r := range p.Rows() {
		cw.Write([]string{r.Emulator, r.Schedule, strconv.Itoa(r.Threads), strconv.FormatBool(r.MemoryModel),
			strconv.FormatFloat(r.Speedup, 'f', 4, 64), strconv.FormatFloat(r.ParallelNs, 'f', 0, 64),
			strconv.FormatFloat(p.SerialNs, 'f', 0, 64), strconv.FormatBool(r.Sampled)})
	}
	cw.Flush()
	return cw.Error()
}

// column is one (emulator, schedule, memory model) column of the table.
type column struct {
	emu, sched string
	mem        bool
}

func (c column) title() string {
	t := c.emu + " " + c.sched
	if c.mem {
		t += " +M"
	}
	return t
}

// WriteTable writes a table a person can read at a glance: one row per
// thread count, one column per emulator and schedule (with "+M" columns
// for the memory model, like the paper's Pred and PredM), speedups in the
// cells, then the memory-model sentence and the notes.
func (p *Predictions) WriteTable(w io.Writer) error {
	var cols []column
	seen := map[column]bool{}
	var threads []int
	seenT := map[int]bool{}
	cell := map[column]map[int]emulate.Result{}
	for _, r := range p.Results {
		c := column{r.Emulator, r.Schedule.String(), r.MemoryModel}
		if !seen[c] {
			seen[c] = true
			cols = append(cols, c)
			cell[c] = map[int]emulate.Result{}
		}
		if !seenT[r.Threads] {
			seenT[r.Threads] = true
			threads = append(threads, r.Threads)
		}
		cell[c][r.Threads] = r
	}
	slices.Sort(threads)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"threads"}
	for _, c := range cols {
		head = append(head, c.title())
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	anyEstimate := false
	for _, t := range threads {
		line := []string{strconv.Itoa(t)}
		for _, c := range cols {
			if r, ok := cell[c][t]; ok {
				mark := ""
				if r.Sampled {
					mark, anyEstimate = "~", true
				}
				line = append(line, fmt.Sprintf("%.2f%s", r.Speedup, mark))
			} else {
				line = append(line, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(line, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if anyEstimate {
		fmt.Fprintln(w, "~ estimated from a sample of the program's large sections (see the notes below).")
	}
	fmt.Fprintf(w, "\nSpeedups over the serial time %s.\n", durNs(p.SerialNs))
	if p.Memory != "" {
		fmt.Fprintln(w, tableSentence(p.Memory)+".")
	}
	if err := writeBetas(w, p.Betas, p.MemorySource); err != nil {
		return err
	}
	for _, n := range p.Notes {
		fmt.Fprintln(w, tableSentence(n)+".")
	}
	return nil
}

func tableSentence(s string) string {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// writeBetas writes the burden factors of the sections the memory model
// has something for, one row per section, one column per thread count;
// an asterisk marks a factor extrapolated beyond the cores probed.
func writeBetas(w io.Writer, betas []memmodel.SectionBetas, source string) error {
	var rows []memmodel.SectionBetas
	for _, b := range betas {
		if b.Source != "" {
			rows = append(rows, b)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintf(w, "Burden factors β from %s:\n", source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "section\t"
	for _, t := range rows[0].Threads {
		head += fmt.Sprintf("β_%d\t", t)
	}
	fmt.Fprintln(tw, head)
	starred := false
	for _, b := range rows {
		line := b.Name + "\t"
		for i, v := range b.Beta {
			star := ""
			if i < len(b.Extrapolated) && b.Extrapolated[i] {
				star, starred = "*", true
			}
			line += fmt.Sprintf("%.2f%s\t", v, star)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if starred {
		fmt.Fprintln(w, "* extrapolated beyond the cores the memory probe measured on, from its saturation bandwidth.")
	}
	return nil
}
