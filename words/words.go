// Package words holds every sentence spikescope says about a run: it renders
// the typed reasons the rules return (model.Reason) in English and Chinese
// for the JSON, the TUI and the reports. The rules hold the numbers, this
// package holds the wording; nothing else builds a sentence from a reason.
package words

import (
	"fmt"

	"spikescope/model"
)

// Lang is the language a reason is said in.
type Lang string

const (
	// Default is each text's language before --lang chose one: English,
	// except Phase 2's reasoning, which the method's scripts write in
	// Chinese (the drop-in JSON keeps it).
	Default Lang = ""
	English Lang = "en"
	Chinese Lang = "zh"
)

// Of maps a --lang value ("en", "zh", "") to a Lang.
func Of(s string) Lang {
	switch s {
	case "zh":
		return Chinese
	case "en":
		return English
	}
	return Default
}

// entry is one reason type's sentences.
type entry struct {
	zero model.Reason
	say  func(r model.Reason, zh bool) string
}

var entries = map[string]entry{}

// register adds the sentences of reason type R: say returns its Chinese
// sentence when zh, else its English one. Called from each file's init.
func register[R model.Reason](say func(r R, zh bool) string) {
	var zero R
	rule := zero.Rule()
	if _, dup := entries[rule]; dup {
		panic("words: rule registered twice: " + rule) // a programming error, caught by every test
	}
	entries[rule] = entry{zero: zero, say: func(r model.Reason, zh bool) string { return say(r.(R), zh) }}
}

// english holds the plain-English sentences of the reasons whose default
// sentence is the reference script's mixed wording (the drop-in JSON keeps
// it): an explicit --lang en says them in English only.
var english = map[string]func(model.Reason) string{}

// registerEnglish adds the plain-English sentence of reason type R, said
// for English where Default keeps the drop-in wording.
func registerEnglish[R model.Reason](say func(r R) string) {
	var zero R
	english[zero.Rule()] = func(r model.Reason) string { return say(r.(R)) }
}

// Say renders r in l (Default and English say English; English says the
// plain English of a drop-in text with a mixed wording).
func Say(r model.Reason, l Lang) string {
	if r == nil {
		return ""
	}
	if say, ok := english[r.Rule()]; ok && l == English {
		return say(r)
	}
	e, ok := entries[r.Rule()]
	if !ok {
		// TestEveryReasonHasSentences makes this unreachable for the
		// reasons of package model; say the values rather than nothing.
		return fmt.Sprintf("%v", r)
	}
	return e.say(r, l == Chinese)
}

// All renders rs in l, one string each.
func All(rs []model.Reason, l Lang) []string {
	if rs == nil {
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = Say(r, l)
	}
	return out
}

func init() {
	register(func(s model.Sentence, _ bool) string { return string(s) })
}

// pick is en, or zh when zh: a register function's two sentences.
func pick(zh bool, en, z string) string {
	if zh {
		return z
	}
	return en
}

// lang is the language a register function's zh flag says.
func lang(zh bool) Lang {
	if zh {
		return Chinese
	}
	return English
}

// fill sets *text to r said in l when r is there (a result read back from
// JSON has its texts only: they stay).
func fill(text *string, r model.Reason, l Lang) {
	if r != nil {
		*text = Say(r, l)
	}
}

// fillAll sets *texts to rs said in l when rs is there.
func fillAll(texts *[]string, rs []model.Reason, l Lang) {
	if rs != nil {
		*texts = All(rs, l)
	}
}
