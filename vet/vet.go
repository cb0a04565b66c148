// Package vet is a static checker for programs annotated with package
// annotate, built on golang.org/x/tools/go/analysis: it finds, before a
// long recording run, the mistakes that would make the recording fail or
// lie.
//
//   - Begin and End calls that do not pair on some path through a
//     function: a SecEnd while a Task is open, a LockEnd whose id differs
//     from its LockBegin's, an End with nothing open, paths that reach
//     the same statement with different annotations open, and a return
//     between a Begin and its End (without a deferred End).
//   - Annotation calls in a goroutine a go statement starts: the
//     recorder records the recording goroutine only (the annotations
//     describe parallelism; they must not run in parallel).
//   - A main package that imports annotate but never calls annotate.Stop
//     (or annotate.Record): its profile is never written.
//   - An annotate.Lock whose critical section (a function literal)
//     writes an element a non-constant index picks, such as a
//     histogram's bins[b]: an indexed critical section, which
//     annotate.LockIndexed marks, or the predictions leave the move of
//     its cache line out of the hold.
//
// `prophet vet PACKAGES` runs Analyzer; cmd/prophet-vet is the same
// check as a tool for `go vet -vettool`.
package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"
)

// AnnotatePath is the import path of the package whose calls are checked.
const AnnotatePath = "github.com/parallel-prophet/prophet/annotate"

// Analyzer checks the use of package annotate (see the package
// documentation).
var Analyzer = &analysis.Analyzer{
	Name:     "annotate",
	Doc:      "check that prophet annotations pair up, run on the recording goroutine, and are stopped",
	URL:      "https://pkg.go.dev/github.com/parallel-prophet/prophet/vet",
	Requires: []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer},
	Run:      run,
}

func run(pass *analysis.Pass) (any, error) {
	if !imports(pass.Pkg, AnnotatePath) {
		return nil, nil
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	checkGoStmts(pass, ins)
	checkIndexedLocks(pass, ins)
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body != nil {
				checkPairs(pass, cfgs, cfgs.FuncDecl(fn), fn.Body)
			}
		case *ast.FuncLit:
			checkPairs(pass, cfgs, cfgs.FuncLit(fn), fn.Body)
		}
	})
	checkStop(pass)
	return nil, nil
}

// imports reports whether pkg imports path directly.
func imports(pkg *types.Package, path string) bool {
	for _, p := range pkg.Imports() {
		if p.Path() == path {
			return true
		}
	}
	return false
}

// annotateFunc returns the name of the package-annotate function call
// calls ("SecBegin", ...), or "".
func annotateFunc(info *types.Info, call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != AnnotatePath {
		return ""
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		return ""
	}
	return fn.Name()
}

// checkStop reports a main package that imports annotate and never
// calls annotate.Stop, Record or RecordWith.
func checkStop(pass *analysis.Pass) {
	if pass.Pkg.Name() != "main" {
		return
	}
	var imp *ast.ImportSpec
	for _, f := range pass.Files {
		if ast.IsGenerated(f) {
			return // go test's generated main: the tests record
		}
		for _, spec := range f.Imports {
			if strings.Trim(spec.Path.Value, "`\"") == AnnotatePath && imp == nil {
				imp = spec
			}
		}
		stopped := false
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				switch annotateFunc(pass.TypesInfo, call) {
				case "Stop", "Record", "RecordWith":
					stopped = true
				}
			}
			return !stopped
		})
		if stopped {
			return
		}
	}
	if imp != nil {
		pass.Reportf(imp.Pos(), "package main imports annotate but never calls annotate.Stop: the profile is written by Stop (defer annotate.Stop() in main), or use annotate.Record")
	}
}

// checkGoStmts reports annotation calls that run on a goroutine a go
// statement starts: in the function literal it runs, in the package's
// own function it calls, or the go statement's call itself.
func checkGoStmts(pass *analysis.Pass, ins *inspector.Inspector) {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	ins.Preorder([]ast.Node{(*ast.GoStmt)(nil)}, func(n ast.Node) {
		g := n.(*ast.GoStmt)
		line := pass.Fset.Position(g.Pos()).Line
		if name := annotateFunc(pass.TypesInfo, g.Call); name != "" {
			pass.Reportf(g.Call.Pos(), "annotate.%s runs on a new goroutine (go statement): the recorder only records the recording goroutine; annotations describe parallelism and must run serially", name)
			return
		}
		var body ast.Node
		where := "the goroutine started at line " + fmt.Sprint(line)
		switch fun := ast.Unparen(g.Call.Fun).(type) {
		case *ast.FuncLit:
			body = fun.Body
		case *ast.Ident, *ast.SelectorExpr:
			id, _ := fun.(*ast.Ident)
			if sel, ok := fun.(*ast.SelectorExpr); ok {
				id = sel.Sel
			}
			if fn, ok := pass.TypesInfo.Uses[id].(*types.Func); ok && decls[fn] != nil {
				body = decls[fn].Body
				where = fmt.Sprintf("%s, which the goroutine started at line %d runs", fn.Name(), line)
			}
		}
		if body == nil {
			return
		}
		ast.Inspect(body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if name := annotateFunc(pass.TypesInfo, call); name != "" {
					pass.Reportf(call.Pos(), "annotate.%s in %s: the recorder only records the recording goroutine; annotations describe parallelism and must run serially", name, where)
				}
			}
			return true
		})
	})
}

// open is an annotation Begin not yet ended (or, deferred, an End).
type open struct {
	kind string // "Sec", "Task", "Lock"
	name string // the call ("LockIndexedBegin", "LockEnd")
	id   string // the lock id's value or expression (Lock only)
	pos  token.Pos
}

// state is what is open, and what deferred Ends will close at a
// return, on a path through a function.
type state struct {
	stack    []open
	deferred []open // kind and id of each deferred End, in defer order
}

func (s state) clone() state {
	return state{stack: append([]open(nil), s.stack...), deferred: append([]open(nil), s.deferred...)}
}

// key identifies a state for comparing paths (positions aside).
func (s state) key() string {
	var b strings.Builder
	for _, o := range s.stack {
		b.WriteString(o.kind + "(" + o.id + ")/")
	}
	b.WriteString("|")
	for _, o := range s.deferred {
		b.WriteString(o.kind + "(" + o.id + ")/")
	}
	return b.String()
}

// describe says what s has open, for a message.
func (s state) describe(fset *token.FileSet) string {
	if len(s.stack) == 0 {
		return "nothing open"
	}
	var parts []string
	for _, o := range s.stack {
		parts = append(parts, o.String(fset))
	}
	return strings.Join(parts, " and ") + " open"
}

// String names o's call (with the lock id for a Lock) and its line.
func (o open) String(fset *token.FileSet) string {
	id := ""
	if o.kind == "Lock" {
		id = o.id
	}
	return fmt.Sprintf("%s(%s) of line %d", o.name, id, fset.Position(o.pos).Line)
}

// checker checks the pairing in one function.
type checker struct {
	pass     *analysis.Pass
	cfgs     *ctrlflow.CFGs
	reported bool // one finding per function: later ones follow from it
}

func (c *checker) report(pos token.Pos, format string, args ...any) {
	if !c.reported {
		c.reported = true
		c.pass.Reportf(pos, format, args...)
	}
}

// checkPairs follows every path of the function's control-flow graph g,
// the annotations open along it, and reports where they do not pair.
func checkPairs(pass *analysis.Pass, cfgs *ctrlflow.CFGs, g *cfg.CFG, body *ast.BlockStmt) {
	if g == nil || len(g.Blocks) == 0 || !mentionsAnnotate(pass.TypesInfo, body) {
		return
	}
	c := &checker{pass: pass, cfgs: cfgs}
	in := map[*cfg.Block]state{}
	in[g.Blocks[0]] = state{}
	work := []*cfg.Block{g.Blocks[0]}
	for len(work) > 0 && !c.reported {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		st := in[b].clone()
		for _, n := range b.Nodes {
			c.node(n, &st)
			if c.reported {
				return
			}
		}
		if len(b.Succs) == 0 {
			c.exit(b, st, body)
			continue
		}
		for _, s := range b.Succs {
			prev, seen := in[s]
			if !seen {
				in[s] = st.clone()
				work = append(work, s)
				continue
			}
			if prev.key() != st.key() {
				pos := body.Pos()
				if len(s.Nodes) > 0 {
					pos = s.Nodes[0].Pos()
				}
				c.report(pos, "annotations do not pair on every path to here: one path has %s, another %s", prev.describe(pass.Fset), st.describe(pass.Fset))
			}
		}
	}
}

// mentionsAnnotate reports whether body calls package annotate outside
// nested function literals.
func mentionsAnnotate(info *types.Info, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if annotateFunc(info, n) != "" {
				found = true
			}
		}
		return true
	})
	return found
}

// node applies the annotation calls of one CFG node to st, in source
// order; deferred Ends are remembered for the exits.
func (c *checker) node(n ast.Node, st *state) {
	switch n := n.(type) {
	case *ast.DeferStmt:
		c.deferCall(n.Call, st)
		return
	case *ast.GoStmt:
		return // runs on another goroutine: checkGoStmts reports it
	}
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false // a function of its own
		case *ast.CallExpr:
			c.call(m, st, false)
		}
		return true
	})
}

// deferCall records the Ends a defer statement runs at the exits.
func (c *checker) deferCall(call *ast.CallExpr, st *state) {
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		ast.Inspect(lit.Body, func(m ast.Node) bool {
			if call, ok := m.(*ast.CallExpr); ok {
				c.call(call, st, true)
			}
			return true
		})
		return
	}
	c.call(call, st, true)
}

// call applies one annotate call to st (deferred: to the Ends the exits
// run).
func (c *checker) call(call *ast.CallExpr, st *state, deferred bool) {
	name := annotateFunc(c.pass.TypesInfo, call)
	kind, begin := "", false
	switch name {
	case "SecBegin", "TaskBegin", "LockBegin", "SetupBegin":
		kind, begin = strings.TrimSuffix(name, "Begin"), true
	case "LockIndexedBegin":
		kind, begin = "Lock", true
	case "SecEnd", "TaskEnd", "LockEnd", "SetupEnd":
		kind = strings.TrimSuffix(name, "End")
	default:
		return
	}
	id := ""
	if kind == "Lock" && len(call.Args) == 1 {
		id = c.value(call.Args[0])
	}
	o := open{kind: kind, name: name, id: id, pos: call.Pos()}
	if deferred {
		if begin {
			c.report(call.Pos(), "annotate.%s deferred: a Begin runs when the function returns, after everything it should mark", name)
			return
		}
		st.deferred = append(st.deferred, o)
		return
	}
	if begin {
		st.stack = append(st.stack, o)
		return
	}
	c.end(o, st, call.Pos())
}

// end closes the innermost open annotation with End o.
func (c *checker) end(o open, st *state, pos token.Pos) {
	if len(st.stack) == 0 {
		c.report(pos, "annotate.%sEnd with no %sBegin open in this function on this path", o.kind, o.kind)
		return
	}
	top := st.stack[len(st.stack)-1]
	switch {
	case top.kind != o.kind:
		c.report(pos, "annotate.%sEnd while %s is the innermost annotation open: End the %s first", o.kind, top.String(c.pass.Fset), strings.ToLower(top.kind))
	case o.kind == "Lock" && top.id != o.id && constantID(top.id) && constantID(o.id):
		c.report(pos, "annotate.LockEnd(%s) closes %s(%s) of line %d: the ids differ", o.id, top.name, top.id, c.pass.Fset.Position(top.pos).Line)
	default:
		st.stack = st.stack[:len(st.stack)-1]
	}
}

// exit checks what is open where a path leaves the function (b has no
// successors): after the deferred Ends, nothing may be.
func (c *checker) exit(b *cfg.Block, st state, body *ast.BlockStmt) {
	if !b.Live {
		return
	}
	pos := body.Rbrace
	if k := len(b.Nodes); k > 0 {
		last := b.Nodes[k-1]
		if c.noReturn(last) {
			return // panics or exits: nothing is written anyway
		}
		if r, ok := last.(*ast.ReturnStmt); ok {
			pos = r.Pos()
		}
	}
	for i := len(st.deferred) - 1; i >= 0; i-- {
		c.end(st.deferred[i], &st, st.deferred[i].pos)
		if c.reported {
			return
		}
	}
	if len(st.stack) > 0 {
		c.report(pos, "the function returns here with %s: End it before returning, or defer the End", st.describe(c.pass.Fset))
	}
}

// noReturn reports whether n is a call that never returns (panic,
// os.Exit, log.Fatal and others the ctrlflow analysis knows).
func (c *checker) noReturn(n ast.Node) bool {
	es, ok := n.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		id = fun.Sel
	default:
		return false
	}
	switch obj := c.pass.TypesInfo.Uses[id].(type) {
	case *types.Builtin:
		return obj.Name() == "panic"
	case *types.Func:
		return c.cfgs.NoReturn(obj) || obj.Name() == "Exit" && obj.Pkg() != nil && obj.Pkg().Path() == "os"
	}
	return false
}

// value is a lock id argument as text: its constant value when it has
// one, else the expression.
func (c *checker) value(e ast.Expr) string {
	if tv, ok := c.pass.TypesInfo.Types[e]; ok && tv.Value != nil {
		return tv.Value.ExactString()
	}
	return "expr:" + types.ExprString(e)
}

// constantID reports whether id (from value) is a constant's value.
func constantID(id string) bool { return id != "" && !strings.HasPrefix(id, "expr:") }
