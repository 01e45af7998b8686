package synth

import (
	"os"
	"path/filepath"
)

// RebasedConfig is DefaultConfig monitored from training step 100, the
// fault at step 105: the trend.db steps are re-based to 0 (as data2db
// does) while the dump folders keep the training steps (step104, step105).
func RebasedConfig() Config {
	cfg := DefaultConfig()
	cfg.FirstStep = 100
	cfg.Fault.OptStep = 105
	return cfg
}

// DevicePaths are the inputs WriteDevices wrote: both devices' trend.db and
// dump trees.
type DevicePaths struct {
	TrendDB, BaselineTrendDB, Dumps, BaselineDumps string
}

// WriteDevices writes the run's anomalous and baseline devices under dir in
// the demo layout (trend.db and dump tree of each; no CSV tree).
func (r *Run) WriteDevices(dir string) (DevicePaths, error) {
	p := DevicePaths{
		TrendDB: filepath.Join(dir, DemoTrendDB), BaselineTrendDB: filepath.Join(dir, DemoBaselineTrendDB),
		Dumps: filepath.Join(dir, DemoDumpDir), BaselineDumps: filepath.Join(dir, DemoBaselineDumpDir),
	}
	for _, w := range []func() error{
		func() error { return os.MkdirAll(filepath.Dir(p.TrendDB), 0o755) },
		func() error { return os.MkdirAll(filepath.Dir(p.BaselineTrendDB), 0o755) },
		func() error { return r.WriteTrendDB(p.TrendDB) },
		func() error { return r.WriteTrendDBFor(p.BaselineTrendDB, Baseline) },
		func() error { return r.WriteDumps(p.Dumps, Anomalous) },
		func() error { return r.WriteDumps(p.BaselineDumps, Baseline) },
	} {
		if err := w(); err != nil {
			return p, err
		}
	}
	return p, nil
}
