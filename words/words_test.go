package words

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// modelRules reads package model's source for every `func (T) Rule() string
// { return "…" }` and returns the rules it declares.
func modelRules(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../model/*.go")
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "Rule" || fn.Recv == nil || fn.Body == nil || len(fn.Body.List) != 1 {
				continue
			}
			ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				continue
			}
			lit, ok := ret.Results[0].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: Rule() must return a string literal", fset.Position(fn.Pos()))
				continue
			}
			rule, _ := strconv.Unquote(lit.Value)
			if prev, dup := rules[rule]; dup {
				t.Errorf("rule %q declared twice (%s and %s)", rule, prev, fset.Position(fn.Pos()))
			}
			rules[rule] = fset.Position(fn.Pos()).String()
		}
	}
	return rules
}

// Every reason type of package model has its sentences here, and each says
// something in both languages; the Chinese one holds Chinese.
func TestEveryReasonHasSentences(t *testing.T) {
	rules := modelRules(t)
	if len(rules) == 0 {
		t.Fatal("no reason types found in package model")
	}
	for rule, at := range rules {
		e, ok := entries[rule]
		if !ok {
			t.Errorf("%s (%s) has no sentences in package words", rule, at)
			continue
		}
		if rule == "sentence" {
			continue
		}
		en, zh := Say(e.zero, English), Say(e.zero, Chinese)
		if strings.TrimSpace(en) == "" || strings.TrimSpace(zh) == "" {
			t.Errorf("%s says nothing in one language: en %q zh %q", rule, en, zh)
		}
		if !hasHan(zh) {
			t.Errorf("%s's Chinese sentence holds no Chinese: %q", rule, zh)
		}
		if s := EnglishSentence(zh); s != "" {
			t.Errorf("%s's Chinese sentence holds English %q: %q", rule, s, zh)
		}
	}
	for rule := range entries {
		if _, ok := rules[rule]; !ok {
			t.Errorf("words registers %q, which no model type declares", rule)
		}
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func TestEnglishSentence(t *testing.T) {
	for s, want := range map[string]bool{
		"the baseline has no candidate on the same parameter": true,
		"opt_step 5 的 micro step 2, rank 3":                   false,
		"层 2 的 NPU.npu_swiglu.2.forward 前向分叉":                 false,
		"前反向单位: optimizer step 与 micro step":                  false,
		"backward divergence follows the forward":             true,
	} {
		if got := EnglishSentence(s) != ""; got != want {
			t.Errorf("EnglishSentence(%q) = %q, want found=%v", s, EnglishSentence(s), want)
		}
	}
}
