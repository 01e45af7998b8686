package main

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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
	dir, err = os.MkdirTemp("", "spikescope-demo-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	err = fs.WalkDir(demoFS, demoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, demoRoot), "/")
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := demoFS.ReadFile(path.Clean(p))
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}
