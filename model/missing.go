package model

// Missing is one piece of data the analysis lacked and what to collect to
// go further, e.g. {What: "baseline run", Next: "dump C and D at step 5 on rank 2"}.
// ZhWhat/ZhNext are the same in Chinese (the Chinese report falls back to
// What/Next when they are empty). The pipeline says what is missing; the
// report and the TUI show it.
type Missing struct {
	What   string `json:"what"`
	Next   string `json:"next"`
	ZhWhat string `json:"what_zh,omitempty"`
	ZhNext string `json:"next_zh,omitempty"`
	// WhatReason and NextReason are what the texts say (nil when read
	// back from a saved result: the texts stay).
	WhatReason Reason `json:"-"`
	NextReason Reason `json:"-"`
}
