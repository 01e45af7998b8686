package outfile

import (
	"os"
	"path/filepath"

	"spikescope/ingest"
)

// CreateNew writes data to path, which must not exist yet (O_EXCL: an
// earlier report or plan is never overwritten, and a race with another
// writer loses instead of clobbering). A failed write removes the file.
func CreateNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// NamedData is one file of a set written into a folder.
type NamedData struct {
	Name string
	Data []byte
}

// WriteNewFiles writes files into dir (made when missing), each through
// Write (temporary file + rename). Any file that already exists is refused
// before anything is written. It returns the paths written.
func WriteNewFiles(dir, what string, files []NamedData) ([]string, error) {
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if _, err := os.Lstat(path); err == nil {
			return nil, &ingest.InputError{Path: path, Problem: "already exists; spikescope never replaces a file: choose another folder or move it away"}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &ingest.InputError{Path: dir, Problem: "cannot make the folder: " + RootCause(err), Err: err}
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if err := Write(path, what, f.Data); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}
