package ff

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/parallel-prophet/prophet/machine"
	"github.com/parallel-prophet/prophet/tree"
)

func TestCnodeSize(t *testing.T) {
	if n := unsafe.Sizeof(cnode{}); n != 16 {
		t.Errorf("cnode is %d bytes, want 16", n)
	}
}

func TestCompileShape(t *testing.T) {
	inner := tree.Sec("inner", tree.Task("x", tree.U(3)), tree.Task("y", tree.U(4)))
	sec := tree.Sec("outer",
		tree.U(1),
		tree.Task("a", tree.U(2), tree.L(70, 5), inner),
		tree.Run(3, tree.Task("b", tree.L(-9, 6))),
	)
	p := mustCompile(t, sec)
	r := p.root()
	if p.name(r) != "outer" || r.kind() != tree.KindSec || r.n() != 3 || r.dense() {
		t.Fatalf("root %+v (%q)", *r, p.name(r))
	}
	k := p.kids(r)
	if k[0].kind() != tree.KindU || k[0].len() != 1 {
		t.Errorf("child 0 %+v, want U 1", k[0])
	}
	a := &k[1]
	if p.name(a) != "a" || a.n() != 3 || a.count() != 1 {
		t.Errorf("child 1 %+v (%q)", *a, p.name(a))
	}
	ak := p.kids(a)
	if ak[1].kind() != tree.KindL || ak[1].len() != 5 || p.lockIDs[ak[1].ref()] != 70 {
		t.Errorf("a's L %+v", ak[1])
	}
	in := &ak[2]
	if p.name(in) != "inner" || !in.dense() || in.n() != 2 {
		t.Errorf("inner %+v (%q)", *in, p.name(in))
	}
	b := &k[2]
	if b.count() != 3 || p.lockIDs[p.kids(b)[0].ref()] != -9 {
		t.Errorf("b %+v", *b)
	}
	if len(p.lockIDs) != 2 {
		t.Errorf("lock ids %v, want 2 dense indices", p.lockIDs)
	}
}

func TestCompileSharedOnce(t *testing.T) {
	// A profile file stores a node its dictionary shares once; the
	// compact copy must share it too.
	task := tree.Task("t", tree.U(5), tree.L(1, 2))
	var tasks []*tree.Node
	for i := 0; i < 1000; i++ {
		tasks = append(tasks, tree.Task("w", tree.U(int64(i)), tree.Sec("s", task, task)))
	}
	var b strings.Builder
	if err := tree.Write(&b, tree.New(tree.Sec("top", tasks...))); err != nil {
		t.Fatal(err)
	}
	rt, err := tree.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	p := mustCompile(t, rt.Root.Children[0])
	// 1 root + 1000 tasks + 1000·2 (U, Sec) + 1000·2 task refs in the
	// Secs + 2 children of the one shared task: no copy per parent.
	if got, max := len(p.nodes), 1+1000+2000+2000+2; got > max {
		t.Errorf("%d compact nodes, want at most %d", got, max)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		sec  *tree.Node
		want string
	}{
		{"nil", nil, "nil section"},
		{"not a section", tree.Task("t"), "expected a Sec node"},
		{"L in a section", tree.Sec("s", tree.L(1, 2)), `section "s" holds a L node`},
		{"task in a task", tree.Sec("s", tree.Task("t", tree.Task("u"))), `task "t" holds a Task node`},
		{"nil child", tree.Sec("s", tree.Task("t", nil)), `task "t": nil child`},
		{"negative", tree.Sec("s", tree.Task("t", tree.U(-1))), `task "t": negative length -1`},
		{"deep", tree.Sec("s", tree.Task("t", tree.Sec("n", tree.Task("u", tree.U(-2))))), `task "u": negative length -2`},
	}
	for _, tc := range tests {
		_, err := compile(tc.sec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestCompileLongRuns checks that a run longer than a cnode's count
// (maxCount) becomes consecutive pieces with the same expanded nodes,
// and that the emulation does not see the split.
func TestCompileLongRuns(t *testing.T) {
	const long = 5_000_000_000 // 2·maxCount + 705032706
	sec := tree.Sec("s",
		tree.Run(long, tree.Task("t", tree.U(2))),
		tree.Task("u", tree.Run(long, tree.U(1)), tree.Run(long, tree.L(7, 3)), tree.U(4)),
	)
	p := mustCompile(t, sec)
	k := p.kids(p.root())
	if len(k) != 4 {
		t.Fatalf("%d children, want 3 pieces of t and u", len(k))
	}
	var sum int64
	for i := range 3 {
		if p.name(&k[i]) != "t" || k[i].kind() != tree.KindTask || k[i].first() != k[0].first() {
			t.Errorf("piece %d: %+v (%q), want a piece of t", i, k[i], p.name(&k[i]))
		}
		sum += k[i].count()
	}
	if sum != long || k[0].count() != maxCount {
		t.Errorf("pieces of t count %d (first %d), want %d (%d)", sum, k[0].count(), int64(long), maxCount)
	}
	uk := p.kids(&k[3])
	if len(uk) != 7 {
		t.Fatalf("u has %d children, want 3 pieces of U, 3 of L and the last U", len(uk))
	}
	for i, c := range uk[:6] {
		want, lock := tree.KindU, int32(0)
		if i >= 3 {
			want, lock = tree.KindL, 0
		}
		if c.kind() != want || c.ref() != lock || c.len() != []int64{1, 1, 1, 3, 3, 3}[i] {
			t.Errorf("u's child %d: %+v", i, c)
		}
	}
	if uk[6].kind() != tree.KindU || uk[6].len() != 4 || uk[6].count() != 1 {
		t.Errorf("u's last child %+v, want U 4", uk[6])
	}

	// The pure run alone, in schedules that take a run in a few steps:
	// static on 4 threads takes a quarter of it, and guided:1's chunks
	// share it out evenly too. So does spawn without overheads: the
	// first three spawns start on the idle cores at time 0, the rest
	// are queued at once (spawnRun), the spawner waits at the join at
	// time 0, and the four cores drain the queue in rounds
	// (lockstepSpawnPure).
	run := tree.Sec("s", tree.Run(long, tree.Task("t", tree.U(2))))
	for _, s := range []string{"static", "guided:1", "spawn"} {
		if got, want := emu(t, nil, run, 4, s, machine.Overheads{}), 2.0*long/4; got != want {
			t.Errorf("%s: %g ns, want %g", s, got, want)
		}
	}
	// A task with a long run of U: the run is one step.
	us := tree.Sec("s", tree.Task("a", tree.Run(long, tree.U(1))), tree.Task("b", tree.U(5)))
	if got, want := emu(t, nil, us, 2, "static", machine.Overheads{}), float64(long); got != want {
		t.Errorf("long U run: %g ns, want %g", got, want)
	}
}
