package main

import (
	"encoding/json"

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
		if err := parse(fs, args); err != nil {
			return err
		}
		path, err := oneFile(fs, "profile")
		if err != nil {
			return err
		}
		if *format != "text" && *format != "json" {
			return usagef("--format: want text or json, not %q", *format)
		}
		t, err := tree.ReadFile(path)
		if err != nil {
			return err
		}
		if *format == "json" {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(tree.JSON(t))
		}
		return tree.WriteText(e.stdout, t, tree.TextOptions{MaxDepth: *depth, MaxChildren: *most})
	}
	return c
}
