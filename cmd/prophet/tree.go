package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/memmodel"

	"github.com/parallel-prophet/prophet/tree"
)

func treeCommand() *command {
	c := &command{
		name:    "tree",
		args:    "FILE [--format text|json]",
		summary: "show a profile's program tree: sections, tasks, runs, totals",
		long: `Shows the program tree recorded in FILE: top-level serial code and
sections, each section's tasks (runs of same-shaped tasks as ×N), lock
regions, hardware counters where recorded, and totals. The JSON form carries
serial_ns, tasks, sections, locks, the recording's metadata and the nodes.`,
	}
	c.run = func(e *env, args []string) error {
		fs := newFlags(c, e)
		format := fs.String("format", "text", "output format: text or json")
		depth := fs.Int("depth", 0, "deepest level to print (0: all)")
		most := fs.Int("children", 20, "children printed per node before the rest are summed up (-1: all)")
		lines := fs.Int("lines", tree.DefaultMaxLines, "node lines printed in all before the output stops (-1: all)")
		machinePath := fs.String("machine", "", "machine profile for the burden factors (default: the user config directory's, else none)")
		threads := fs.String("threads", "2,4,8,16", "thread counts to show burden factors β_t for")
		t, th, m, err := profileCommand(e, fs, args, format, []string{"text", "json"}, threads, machinePath, false)
		if err != nil {
			return err
		}
		if *format == "json" {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(tree.JSON(t))
		}
		if err := tree.WriteText(e.stdout, t, tree.TextOptions{MaxDepth: *depth, MaxChildren: *most, MaxLines: *lines}); err != nil {
			return err
		}
		return writeBurdens(e.stdout, t, m, th)
	}
	return c
}

// writeBurdens shows each top-level section's hardware counters and its
// burden factors β_t, or why there are none.
func writeBurdens(w io.Writer, t *tree.Tree, m machine.Profile, threads []int) error {
	var withCounters []*tree.Node
	for _, s := range memmodel.TopSections(t) {
		if s.Counters != nil {
			withCounters = append(withCounters, s)
		}
	}
	fmt.Fprintln(w)
	if len(withCounters) == 0 {
		why := t.Meta.CountersNote
		if why == "" {
			why = "none were recorded"
		}
		_, err := fmt.Fprintf(w, "memory model: no hardware counters in this profile (%s), so burden factors are 1\n", why)
		return err
	}
	if m.Memory == nil {
		fmt.Fprintln(w, "memory model: no machine profile with memory fits (run prophet calibrate), so burden factors are not computed")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "section\truns\tinstructions\tcycles\tLLC misses\tMPI\tδ MB/s\t"
	if m.Memory != nil {
		for _, th := range threads {
			head += fmt.Sprintf("β_%d\t", th)
		}
	}
	fmt.Fprintln(tw, head)
	for _, s := range withCounters {
		c := s.Counters
		var mem machine.Memory
		if m.Memory != nil {
			mem = *m.Memory
		}
		d := memmodel.Compute(*c, mem, m.LineSize, 2) // MPI and δ do not depend on t
		line := fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%.4f\t%.0f\t", s.Name, c.Runs, c.Instructions, c.Cycles, c.LLCMisses, d.MPI, d.Delta)
		if m.Memory != nil {
			for _, th := range threads {
				line += fmt.Sprintf("%.2f\t", memmodel.Compute(*c, *m.Memory, m.LineSize, th).Beta)
			}
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
