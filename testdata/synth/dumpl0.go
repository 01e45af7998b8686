package synth

import (
	"bytes"
	"os"
	"path/filepath"
)

// WriteL0Dumps writes the device's dump tree as msprobe writes it at
// level L0: module records only (no operators), "level": "L0".
func (r *Run) WriteL0Dumps(dir string, dev Device) error {
	for _, f := range r.DumpFolders() {
		roots := r.dumpRoots(dev, f)
		d := filepath.Join(dir, f.Path())
		if err := r.writeFolder(d, roots); err != nil {
			return err
		}
		var mods []entry
		for _, e := range r.entries(roots) {
			if e.n.module {
				mods = append(mods, e)
			}
		}
		var b bytes.Buffer
		if err := writeDumpJSON(&b, mods); err != nil {
			return err
		}
		data := bytes.Replace(b.Bytes(), []byte(`"level": "mix"`), []byte(`"level": "L0"`), 1)
		if err := os.WriteFile(filepath.Join(d, "dump.json"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
