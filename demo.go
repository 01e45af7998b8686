package main

import (
	"embed"

	"spikescope/pipeline"
)

// demoFS is the demo run (testdata/demo, written by `go run ./testdata/gen`).
//
//go:embed testdata/demo
var demoFS embed.FS

// extractDemo copies the embedded demo run into a fresh temporary folder;
// cleanup removes it.
func extractDemo() (dir string, cleanup func(), err error) {
	return pipeline.ExtractDemo(demoFS, "testdata/demo")
}
