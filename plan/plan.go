// Package plan holds the rules of the next-collection plan: from what an
// analysis had and lacked, which msprobe configs to rerun the training
// with (dump config.json per device, a monitor config), on which steps and
// ranks and at which level, what is still unknown, and how large the dump
// will be. It is a pure rule set over model values: the pipeline builds
// its Input, main writes its files, the report and the TUI show it.
package plan

import "spikescope/model"

// Input is what the analysis had. Every field may be empty.
type Input struct {
	P1, P1Baseline *model.Phase1Result
	P2             *model.Phase2Result
	P3             *model.Phase3Result
	// MonitorFormat is the format of the analysed input ("" when none).
	MonitorFormat model.Format
	// NoNorm is set when the monitor data recorded no norm (ops without
	// "norm").
	NoNorm bool
	// ATree..DTree say which dump trees were given; A..D are the dumps
	// compared (nil when missing).
	ATree, BTree, CTree, DTree *model.DumpTree
	A, B, C, D                 *model.Dump
	// DumpStepOffset is dump step − optimizer step as the pipeline found
	// it from the dumps' gradient norms (nil: not found or not needed).
	DumpStepOffset *int
	// StepOffset is --step-offset: the training step of a re-based
	// trend.db's step 0 (nil: not given).
	StepOffset *int
	// Window is --window: the micro steps per optimizer step the user
	// gave (0: not given; 1: one micro batch per step).
	Window int
	// Missing is what the pipeline said was missing, in words.
	Missing []model.Missing
}

// Plan is what to collect next.
type Plan struct {
	// Configs are the files to write (in this order), none when nothing
	// is missing.
	Configs []Config
	// Actions say what to run where and why, in order.
	Actions []Text
	// After are the commands to run once the reruns are done (msprobe
	// compare, data2db, spikescope), in order.
	After []Text
	// Unknown is what the plan could not settle from the data.
	Unknown []Text
	// Estimate is the expected dump size, one line per device.
	Estimate []Text
	// Nothing is set when no data is missing and nothing is unknown:
	// nothing to rerun, no file to write.
	Nothing bool
}

// Text is one line in English and Chinese.
type Text struct{ En, Zh string }

// Config is one file to write: its name, the device it is for, and its
// content (a DumpConfig or a MonitorConfig).
type Config struct {
	Name   string
	Device string // "anomalous" or "baseline"
	Value  any
}

// File names of the configs.
const (
	AnomalousConfig = "config_anomalous.json"
	BaselineConfig  = "config_baseline.json"
	MonitorFile     = "monitor_config.json"
	PlanFile        = "PLAN.md"
)

// FileNames are the names of every file a plan may write.
var FileNames = []string{PlanFile, AnomalousConfig, BaselineConfig, MonitorFile}
