package model

// Reason is one thing a result says, kept as data: the rule that decided and
// the values it used. A rule never writes a sentence; package words renders
// a reason in English or Chinese for the JSON, the TUI and both reports, so
// a wording change or a new language never touches a rule.
type Reason interface {
	// Rule names the rule and the kind of statement (e.g.
	// "phase1.window.detected"): stable, the key of its sentences.
	Rule() string
}

// Sentence is a statement not yet kept as a typed reason: it renders as
// itself in every language. It exists only while rules move to typed
// reasons.
type Sentence string

// Rule implements Reason.
func (Sentence) Rule() string { return "sentence" }
