package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
		if t.Meta.Probe != nil {
			fmt.Fprintf(w, "memory model: no hardware counters in this profile (%s); burden factors from the memory probe\n", why)
			return writeProbe(w, t, threads)
		}
		_, err := fmt.Fprintf(w, "memory model: no hardware counters in this profile (%s) and no memory probe, so burden factors are 1\n", why)
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

// writeProbe shows what the memory probe measured of each top-level
// section and the burden factors β_t it gives.
func writeProbe(w io.Writer, t *tree.Tree, threads []int) error {
	p := t.Meta.Probe
	var curve []string
	for _, c := range p.Curve {
		curve = append(curve, fmt.Sprintf("%d: %.0f MB/s", c.Streams, c.MBs))
	}
	fmt.Fprintf(w, "memory probe on %d cores; each bandit's traffic by bandits streaming: %s\n", p.Cores, strings.Join(curve, ", "))
	if p.Note != "" {
		fmt.Fprintf(w, "memory probe: %s\n", p.Note)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "section\tbandits\tload\truns\tslowdown\tshare\t"
	for _, th := range threads {
		head += fmt.Sprintf("β_%d\t", th)
	}
	fmt.Fprintln(tw, head)
	betas := memmodel.Betas(t, machine.Profile{}, memmodel.Auto, threads)
	for _, sb := range betas {
		sec, ok := p.Sections[sb.Name]
		if !ok {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s\n", sb.Name, strings.Repeat("1.00\t", len(threads)))
			continue
		}
		for i, pt := range sec.Points {
			name, share := sb.Name, fmt.Sprintf("%.2f", pt.Share)
			if i > 0 {
				name = ""
			}
			if pt.Spin != 0 {
				share = "-"
			}
			line := fmt.Sprintf("%s\t%d\t%.2f\t%d\t%.3f\t%s\t", name, pt.Bandits, pt.Load, pt.Runs, pt.Slowdown, share)
			if i == 0 {
				for k, b := range sb.Beta {
					star := ""
					if k < len(sb.Extrapolated) && sb.Extrapolated[k] {
						star = "*"
					}
					line += fmt.Sprintf("%.2f%s\t", b, star)
				}
			}
			fmt.Fprintln(tw, line)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "load: the bandits' demand for bandwidth, in full bandits; slowdown: the section's time beside them over its time alone;\n"+
		"share: the bandwidth it took from full bandits, in bandits (β uses at most 1); * extrapolated beyond the cores probed")
	return err
}
