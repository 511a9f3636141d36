// Command mutate makes the mechanical mutants of a lesson file: each one is
// the file with one small change a learner could make by mistake — a
// condition negated, a comparison moved by one, an index or constant off by
// one, a statement dropped (a re-list, an error check, a call), a boolean
// result swapped. A lesson file's tests must kill every mutant, or the
// mutant must be listed as equivalent with the reason (workshop/mutants/).
//
// This file makes the mutants; main.go runs the chapter's check on each.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
)

// Mutant is one changed copy of a file.
type Mutant struct {
	ID   string // "L42 negate if", stable while the file does not change
	Line int
	What string // what changed, in a reader's words
	Src  []byte // the whole mutated file
}

// swaps are the comparison operators a boundary mistake turns into.
var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.LAND: token.LOR, token.LOR: token.LAND,
}

// Generate returns every mutant of src, in file order. Only function bodies
// are mutated: a change to a declaration or a comment is no learner's
// mistake.
func Generate(filename string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []Mutant
	seen := map[string]bool{}
	// emit prints the file with one change made by apply, then undone by it.
	emit := func(pos token.Pos, what string, apply func() (undo func())) {
		undo := apply()
		var buf bytes.Buffer
		err := format.Node(&buf, fset, f)
		undo()
		if err != nil {
			return // not printable: no mutant
		}
		line := fset.Position(pos).Line
		id := fmt.Sprintf("L%d %s", line, what)
		for n := 2; seen[id]; n++ {
			id = fmt.Sprintf("L%d %s (%d)", line, what, n)
		}
		seen[id] = true
		out = append(out, Mutant{ID: id, Line: line, What: what, Src: buf.Bytes()})
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.IfStmt:
				cond := n.Cond
				emit(n.Pos(), "negate if "+short(fset, cond), func() func() {
					n.Cond = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: cond}}
					return func() { n.Cond = cond }
				})
			case *ast.ForStmt:
				if n.Cond != nil {
					cond := n.Cond
					emit(n.Pos(), "negate for "+short(fset, cond), func() func() {
						n.Cond = &ast.UnaryExpr{Op: token.NOT, X: &ast.ParenExpr{X: cond}}
						return func() { n.Cond = cond }
					})
				}
			case *ast.BinaryExpr:
				if to, ok := swaps[n.Op]; ok {
					from := n.Op
					emit(n.OpPos, fmt.Sprintf("%s → %s in %s", from, to, short(fset, n)), func() func() {
						n.Op = to
						return func() { n.Op = from }
					})
				}
				if (n.Op == token.ADD || n.Op == token.SUB) && isLit(n.Y, "1") {
					x, y, op := n.X, n.Y, n.Op
					emit(n.OpPos, "drop "+op.String()+"1 in "+short(fset, n), func() func() {
						// n becomes x+0: the same value as x, printed plainly.
						n.Op, n.Y = token.ADD, &ast.BasicLit{Kind: token.INT, Value: "0"}
						return func() { n.X, n.Y, n.Op = x, y, op }
					})
				}
			case *ast.BasicLit:
				if n.Kind == token.INT && (n.Value == "0" || n.Value == "1") {
					v := n.Value
					to := map[string]string{"0": "1", "1": "0"}[v]
					emit(n.Pos(), "constant "+v+" → "+to, func() func() {
						n.Value = to
						return func() { n.Value = v }
					})
				}
			case *ast.Ident:
				if n.Name == "true" || n.Name == "false" {
					v := n.Name
					to := map[string]string{"true": "false", "false": "true"}[v]
					emit(n.Pos(), v+" → "+to, func() func() {
						n.Name = to
						return func() { n.Name = v }
					})
				}
			case *ast.BlockStmt:
				for i, st := range n.List {
					if !droppable(st) {
						continue
					}
					list := n.List
					emit(st.Pos(), "drop "+short(fset, st), func() func() {
						n.List = append(append([]ast.Stmt{}, list[:i]...), list[i+1:]...)
						return func() { n.List = list }
					})
				}
			}
			return true
		})
	}
	return out, nil
}

// droppable says whether dropping st is a mistake a learner could make and
// still compile: a call made for its effect, an if (an error check, a
// re-list, a guard), a send, an increment. Declarations and returns stay:
// without them the file would not compile.
func droppable(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ExprStmt, *ast.IfStmt, *ast.SendStmt, *ast.IncDecStmt, *ast.DeferStmt, *ast.GoStmt:
		return true
	case *ast.AssignStmt:
		return st.Tok == token.ASSIGN // x = y; a := declares and must stay
	case *ast.BranchStmt:
		return st.Tok == token.CONTINUE || st.Tok == token.BREAK
	}
	return false
}

func isLit(e ast.Expr, v string) bool {
	b, ok := e.(*ast.BasicLit)
	return ok && b.Value == v
}

// short is the first line of n's source, cut to 60 characters.
func short(fset *token.FileSet, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, n); err != nil {
		return "?"
	}
	s, _, _ := strings.Cut(buf.String(), "\n")
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "…"
	}
	return s
}
