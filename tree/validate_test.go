package tree

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	cyc := Task("c")
	cycSec := Sec("s", cyc)
	cyc.Children = []*Node{cycSec}
	shared := Task("sh", U(1))
	tests := []struct {
		name string
		tree *Tree
		msg  string
	}{
		{"valid", sample(), ""},
		{"empty", New(), ""},
		{"shared", New(Sec("s", shared, shared)), ""},
		{"count 0 reads as 1", New(&Node{Kind: KindU, Len: 3}), ""},
		{"nil tree", nil, "no root"},
		{"nil root", &Tree{}, "no root"},
		{"top not root", &Tree{Root: Sec("s")}, "the top node is a Sec"},
		{"root repeats", &Tree{Root: Run(2, New().Root)}, "repeats 2 times"},
		{"task under root", New(Task("t")), "a Root cannot hold a Task"},
		{"sec under sec", New(Sec("a", Sec("b"))), "a Sec cannot hold a Sec"},
		{"root under task", New(Sec("a", Task("t", New().Root))), "a Task cannot hold a Root"},
		{"leaf children", New(&Node{Kind: KindU, Count: 1, Children: []*Node{U(1)}}), "a U node has children"},
		{"negative length", New(U(-1)), "negative length"},
		{"negative count", New(Run(-1, U(1))), "count -1 is negative"},
		{"length on a task", New(Sec("s", &Node{Kind: KindTask, Len: 4})), "a Task node has a length"},
		{"unknown kind", New(&Node{Kind: 17}), "unknown node kind 17"},
		{"setup L", New(Sec("s", Task("t", &Node{Kind: KindL, Setup: true, Count: 1}))), "only a U node can be setup, not a node of kind L"},
		{"indexed U", New(Sec("s", Task("t", &Node{Kind: KindU, Indexed: true, Count: 1}))), "only an L node can be indexed, not a node of kind U"},
		{"indexed L", New(Sec("s", Task("t", IndexedL(1, 5)))), ""},
		{"nil child", New(Sec("s", nil)), "nil child"},
		{"cycle", New(Sec("top", cyc)), "cycle"},
		{"overflow", New(Run(1<<40, Sec("s", Run(1<<40, Task("t", U(1)))))), "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.tree)
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want one containing %q", err, tc.msg)
			}
		})
	}
}

func TestTotals(t *testing.T) {
	tot := sample().Totals()
	// outer: 4 × (o: U100 + L1 20 + nested: 2 × inner(40+10) + 3 × 7) + U15
	outer := int64(4*(100+20+2*50+3*7) + 15)
	want := Totals{
		SerialNs:      1000 + outer + 2*10*33,
		Tasks:         4*(1+2+3) + 2*10,
		Sections:      1 + 4 + 2,
		Locks:         4 * (1 + 2),
		LockIDs:       []int{1, 2},
		TopSections:   3,
		Nodes:         16,
		ExpandedNodes: 1 + 1 + (1 + 4*(1+2+1+2*3+3*2) + 1) + 2*(1+10*2),
		MaxDepth:      5,
	}
	if tot.SerialNs != want.SerialNs || tot.Tasks != want.Tasks || tot.Sections != want.Sections ||
		tot.Locks != want.Locks || tot.TopSections != want.TopSections || tot.Nodes != want.Nodes ||
		tot.ExpandedNodes != want.ExpandedNodes || tot.MaxDepth != want.MaxDepth ||
		len(tot.LockIDs) != 2 || tot.LockIDs[0] != 1 || tot.LockIDs[1] != 2 {
		t.Errorf("Totals\n got %+v\nwant %+v", tot, want)
	}
	if w := Work(sample().Root); w != want.SerialNs {
		t.Errorf("Work = %d, want %d", w, want.SerialNs)
	}
}

func TestWorkLinearOnSharedDAG(t *testing.T) {
	// A chain of 25 levels, each node holding the next one twice: 4^25
	// paths, which only memoization sums in time.
	n := Task("leaf", U(1))
	for i := range 25 {
		s := Sec("s", n, n)
		s.id = int64(2*i + 1)
		n = Task("t", s, s)
		n.id = int64(2*i + 2)
	}
	tr := New(Sec("top", n))
	if w := Work(tr.Root); w != 1<<50 {
		t.Errorf("Work = %d, want %d", w, int64(1)<<50)
	}
	// A WorkMemo gives the same sums, every level of the chain after the
	// top one from its memo.
	var m WorkMemo
	if w := m.Work(tr.Root); w != 1<<50 {
		t.Errorf("WorkMemo.Work = %d, want %d", w, int64(1)<<50)
	}
	for c, want := n, int64(1)<<50; c.Kind != KindU; c, want = c.Children[0], want/2 {
		if w := m.Work(c); w != want || w != Work(c) {
			t.Errorf("WorkMemo.Work(%s) = %d, want %d", c.Name, w, want)
		}
	}
	if m.Work(nil) != 0 {
		t.Errorf("WorkMemo.Work(nil) != 0")
	}
	tot := tr.Totals()
	// tasks(level k) = 1 + 4·tasks(level k-1), tasks(0) = 1
	if tot.SerialNs != 1<<50 || tot.Tasks != ((1<<52)-1)/3 {
		t.Errorf("Totals = %+v", tot)
	}
	if tot.Nodes != 2*25+4 {
		t.Errorf("Nodes = %d, want %d", tot.Nodes, 2*25+4)
	}
}

func TestWalk(t *testing.T) {
	tr := sample()
	var kinds []string
	Walk(tr.Root, func(n *Node, depth int) bool {
		kinds = append(kinds, strings.Repeat(".", depth)+n.Kind.String())
		return n.Kind != KindTask || n.Name != "o" // skip below task o
	})
	want := "Root .U .Sec ..Task ..U .Sec ..Task ...U"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("Walk visited\n %s\nwant\n %s", got, want)
	}
	count := 0
	Distinct(tr.Root, func(*Node) { count++ })
	if count != 16 {
		t.Errorf("Distinct visited %d nodes, want 16", count)
	}
	var expanded int
	for range tr.Root.Children[0].Expanded() {
		expanded++
	}
	if expanded != 0 {
		t.Errorf("a leaf expanded to %d children", expanded)
	}
	expanded = 0
	for range tr.Root.Expanded() {
		expanded++
	}
	if expanded != 4 {
		t.Errorf("root expanded to %d children, want 4", expanded)
	}
}
