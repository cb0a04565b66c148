package tree

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestFormatNs(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, "0 ns"}, {999, "999 ns"}, {1000, "1.00 µs"}, {12345, "12.3 µs"},
		{123456, "123 µs"}, {2_500_000, "2.50 ms"}, {1_000_000_000, "1.00 s"},
		{75_000_000_000, "75.0 s"}, {-1500, "-1.50 µs"},
	}
	for _, tc := range tests {
		if got := FormatNs(tc.ns); got != tc.want {
			t.Errorf("FormatNs(%d) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}

func TestWriteText(t *testing.T) {
	var kids []*Node
	for i := range 30 {
		kids = append(kids, Task("t", U(int64(100+i*10))))
	}
	tr := New(Sec("many", kids...), sample().Root.Children[1])
	tr.Meta.MeasuredNs = Work(tr.Root) * 101 / 100
	var buf bytes.Buffer
	if err := WriteText(&buf, tr, TextOptions{MaxChildren: 5, MaxDepth: 3}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"… 25 more tasks (work",
		`Sec "outer"  24 tasks, work`,
		`Task "o" ×4`,
		"instructions",
		"mean of 3 runs",
		"… 3 child nodes below",
		"measured",
		"-0.99%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"inner"`) {
		t.Errorf("MaxDepth 3 printed level 4:\n%s", out)
	}
}

func TestJSON(t *testing.T) {
	data, err := json.Marshal(JSON(sample()))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		SerialNs int64 `json:"serial_ns"`
		Tasks    int64 `json:"tasks"`
		Sections int64 `json:"sections"`
		Locks    int64 `json:"locks"`
		Meta     Meta  `json:"meta"`
		Nodes    []struct {
			Kind     string `json:"kind"`
			Count    int64  `json:"count"`
			LenNs    *int64 `json:"len_ns"`
			Counters *Counters
			Children []struct {
				Kind  string `json:"kind"`
				Name  string `json:"name"`
				Count int64  `json:"count"`
			} `json:"children"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	tot := sample().Totals()
	if v.SerialNs != tot.SerialNs || v.Tasks != tot.Tasks || v.Sections != tot.Sections || v.Locks != tot.Locks {
		t.Errorf("totals in JSON: %s", data)
	}
	if v.Meta.Program != "prog -x" || len(v.Nodes) != 3 || v.Nodes[0].LenNs == nil || *v.Nodes[0].LenNs != 1000 ||
		v.Nodes[1].Counters == nil || v.Nodes[1].Children[0].Name != "o" || v.Nodes[1].Children[0].Count != 4 ||
		v.Nodes[2].Count != 2 {
		t.Errorf("JSON view: %s", data)
	}
}
