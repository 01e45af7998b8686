package main

import (
	"embed"
	"io/fs"
	"os"
)

// demoFS is the demo run (testdata/demo, written by `go run ./testdata/gen`).
//
//go:embed testdata/demo
var demoFS embed.FS

// demoRoot is the demo's folder inside demoFS.
const demoRoot = "testdata/demo"

// extractDemo copies the embedded demo run into a fresh temporary folder,
// so that readers open real files (SQLite needs one for the trend.db).
// cleanup removes the folder.
func extractDemo() (dir string, cleanup func(), err error) {
	sub, err := fs.Sub(demoFS, demoRoot)
	if err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp("", "spikescope-demo-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := os.CopyFS(dir, sub); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}
