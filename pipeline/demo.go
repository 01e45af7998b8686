package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"
)

// DemoInputs maps the embedded demo run extracted at dir
// (testdata/demo/README.md) to pipeline inputs: the anomalous device's
// trend.db, the baseline device's, and the dump trees of both.
func DemoInputs(dir string) Inputs {
	return Inputs{
		Path:     filepath.Join(dir, "npu", "trend.db"),
		Baseline: filepath.Join(dir, "gpu", "trend.db"),
		DumpA:    filepath.Join(dir, "npu", "dump"),
		DumpB:    filepath.Join(dir, "gpu", "dump"),
	}
}

// ExtractDemo copies the demo run (folder root of fsys, the binary's
// embedded copy) into a fresh temporary folder, so that readers open real
// files (SQLite needs one for the trend.db). cleanup removes the folder.
func ExtractDemo(fsys fs.FS, root string) (dir string, cleanup func(), err error) {
	sub, err := fs.Sub(fsys, root)
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
