package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
)

// checkIndexedLocks reports an annotate.Lock whose critical section,
// written as a function literal, writes an element that a non-constant
// index picks (bins[b]++, m[key] = v): an indexed critical section,
// which annotate.LockIndexed marks, so that predictions charge the move
// of the element's cache line inside the hold, where a parallel program
// pays it. A section between LockBegin and LockEnd is not checked.
func checkIndexedLocks(pass *analysis.Pass, ins *inspector.Inspector) {
	ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		if len(call.Args) != 2 || annotateFunc(pass.TypesInfo, call) != "Lock" {
			return
		}
		lit, ok := ast.Unparen(call.Args[1]).(*ast.FuncLit)
		if !ok {
			return
		}
		if w := indexedWrite(pass.TypesInfo, lit.Body); w != nil {
			pass.Reportf(w.Pos(), "annotate.Lock's critical section writes %s, an element the task picks: mark it annotate.LockIndexed(%s, ...), so that predictions charge its cache line's move inside the critical section",
				types.ExprString(w), types.ExprString(call.Args[0]))
		}
	})
}

// indexedWrite returns the first target in body (outside nested
// function literals) of an assignment or an increment that goes through
// an index expression with a non-constant index, or nil.
func indexedWrite(info *types.Info, body *ast.BlockStmt) ast.Expr {
	var found ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		var targets []ast.Expr
		switch s := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			targets = s.Lhs
		case *ast.IncDecStmt:
			targets = []ast.Expr{s.X}
		}
		for _, t := range targets {
			if pickedByIndex(info, t) {
				found = t
				return false
			}
		}
		return true
	})
	return found
}

// pickedByIndex reports whether target e reaches its element through an
// index that is not a constant (through field selections and pointer
// dereferences too: h.bins[b], (*p)[i].n).
func pickedByIndex(info *types.Info, e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			if tv, ok := info.Types[x.Index]; !ok || tv.Value == nil {
				return true
			}
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return false
		}
	}
}
