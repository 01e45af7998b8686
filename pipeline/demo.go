package pipeline

import "path/filepath"

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
