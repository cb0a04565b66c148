package ff

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/parallel-prophet/prophet/tree"
)

func TestCnodeSize(t *testing.T) {
	if n := unsafe.Sizeof(cnode{}); n != 32 {
		t.Errorf("cnode is %d bytes, want 32", n)
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
	if p.name(r) != "outer" || r.kind != tree.KindSec || r.n != 3 || r.dense {
		t.Fatalf("root %+v (%q)", *r, p.name(r))
	}
	k := p.kids(r)
	if k[0].kind != tree.KindU || k[0].len != 1 {
		t.Errorf("child 0 %+v, want U 1", k[0])
	}
	a := &k[1]
	if p.name(a) != "a" || a.n != 3 || a.count != 1 {
		t.Errorf("child 1 %+v (%q)", *a, p.name(a))
	}
	ak := p.kids(a)
	if ak[1].kind != tree.KindL || ak[1].len != 5 || p.lockIDs[ak[1].ref] != 70 {
		t.Errorf("a's L %+v", ak[1])
	}
	in := &ak[2]
	if p.name(in) != "inner" || !in.dense || in.n != 2 {
		t.Errorf("inner %+v (%q)", *in, p.name(in))
	}
	b := &k[2]
	if b.count != 3 || p.lockIDs[p.kids(b)[0].ref] != -9 {
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
