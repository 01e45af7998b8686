package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// The pin of an input survives a restart: one small JSON file per input
// under the state folder, named by a hash of the inputs' resolved absolute
// paths (the same run reached through a link or a relative path is the
// same file):
//
//	$XDG_STATE_HOME/spikescope/pins/<hash>.json
//	~/.local/state/spikescope/pins/<hash>.json   (no XDG_STATE_HOME)
//
// Files are written whole through a temporary file and a rename, never
// inside an input folder, always in a command (off the update loop).

// SavedState is what is kept for one input.
type SavedState struct {
	Inputs []string `json:"inputs"`         // role=path of every input, for a reader of the file
	Pin    string   `json:"pin,omitempty"`  // --pin syntax; "" = nothing pinned
	Note   string   `json:"note,omitempty"` // the user's one-line note on the pin
}

// PinStore is where the states of inputs are kept; Dir "" = nowhere.
type PinStore struct {
	Dir string
	Key string // the inputs' identity (StateKey)
	// Inputs are the input folders the store must never write into.
	Inputs []Input
}

// DefaultStateDir is the folder of the saved pins.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "spikescope", "pins")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "spikescope", "pins")
	}
	return ""
}

// DefaultPinStore is the store of the saved pins of inputs in
// DefaultStateDir (demo: the embedded demo run); nil when there is no
// state folder (neither XDG_STATE_HOME nor HOME is set).
func DefaultPinStore(inputs []Input, demo bool) *PinStore {
	dir := DefaultStateDir()
	if dir == "" {
		return nil
	}
	return &PinStore{Dir: dir, Key: StateKey(inputs, demo), Inputs: inputs}
}

// StateKey names a set of inputs by their resolved absolute paths (links
// followed), role by role; demo names the embedded demo run, whose files
// are extracted to a new temporary folder every time.
func StateKey(inputs []Input, demo bool) string {
	if demo {
		return "demo"
	}
	var parts []string
	for _, in := range inputs {
		p := in.Path
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		parts = append(parts, in.Role+"="+p)
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// statePath is the file of key in dir.
func statePath(dir, key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(h[:12])+".json")
}

// loadState reads the saved state of key. A missing file is no state and
// no problem; an unreadable or corrupt one is ignored with a sentence
// saying so (the next pin replaces it). Runs in a command.
func loadState(st PinStore) (SavedState, string) {
	if st.Dir == "" {
		return SavedState{}, ""
	}
	path := statePath(st.Dir, st.Key)
	b, err := readStateFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return SavedState{}, ""
	}
	if err != nil {
		return SavedState{}, fmt.Sprintf("the saved pin could not be read (%s: %v); starting without it", path, oneLine(errText(err)))
	}
	var s SavedState
	if err := json.Unmarshal(b, &s); err != nil {
		return SavedState{}, fmt.Sprintf("the saved pin file %s is damaged (%v); starting without it", path, oneLine(err.Error()))
	}
	return s, ""
}

// maxStateFileBytes bounds a state file: a pin and a one-line note take
// well under a kilobyte.
const maxStateFileBytes = 64 << 10

// readStateFile reads a state file with the checks every file read gets:
// a regular file (a named pipe would block the read forever), at most
// maxStateFileBytes. Opened without blocking and checked again through the
// descriptor, so a path swapped between the checks is refused too.
func readStateFile(path string) ([]byte, error) {
	check := func(st os.FileInfo) error {
		if !st.Mode().IsRegular() {
			return errors.New("not a regular file")
		}
		if st.Size() > maxStateFileBytes {
			return fmt.Errorf("too large for a saved pin (%d bytes, at most %d)", st.Size(), maxStateFileBytes)
		}
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(st); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateFileBytes+1))
	if err == nil && len(b) > maxStateFileBytes {
		err = fmt.Errorf("grew past %d bytes while it was read, too large for a saved pin", maxStateFileBytes)
	}
	return b, err
}

// errText is an OS error without the path it repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// saveState writes s for key atomically: a temporary file in the same
// folder, synced, then renamed over the old one, so a crash leaves the old
// state or the new, never half a file. An empty pin and note removes the
// file. Never inside an input folder. Runs in a command.
func saveState(st PinStore, s SavedState) error {
	if st.Dir == "" {
		return nil
	}
	dir := st.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if insideInput(dir, st.Inputs) {
		return fmt.Errorf("the state folder %s is inside an input folder: the pin is not saved", dir)
	}
	path := statePath(dir, st.Key)
	if s.Pin == "" && s.Note == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the state folder %s: %v", dir, errText(err))
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if len(b)+1 > maxStateFileBytes { // what loadState would refuse
		return fmt.Errorf("the note is too long to keep (%d bytes, at most %d): the pin and note are not saved", len(s.Note), maxStateFileBytes-len(b)+len(s.Note)-1)
	}
	tmp, err := os.CreateTemp(dir, ".pin-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write in the state folder %s: %v", dir, errText(err))
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing left to remove
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("cannot save the pin in %s: %v", path, errText(err))
	}
	return nil
}
