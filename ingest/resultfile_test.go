package ingest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"spikescope/model"
)

func TestReadResultFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "p1.json")
	writeFile(t, good, `{"phase": 1}`)
	b, err := ReadResultFile(good, "Phase 1 JSON")
	if err != nil || string(b) != `{"phase": 1}` {
		t.Fatalf("%q %v", b, err)
	}
	empty := filepath.Join(dir, "empty.json")
	writeFile(t, empty, "")
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	writeFile(t, big, "{")
	if err := os.Truncate(big, MaxResultFileBytes+1); err != nil {
		t.Fatal(err)
	}
	defer func(w time.Duration) { PipeWriterWait = w }(PipeWriterWait)
	PipeWriterWait = 100 * time.Millisecond
	for _, c := range []struct{ path, problem string }{
		{filepath.Join(dir, "nope.json"), "does not exist"},
		{dir, "is a folder, expected a Phase 1 JSON file"},
		{empty, "empty file (0 bytes), expected a Phase 1 JSON"},
		{fifo, "is a named pipe that no program wrote into within 100ms"},
		{big, "2.1 GB is too large for a Phase 1 JSON (at most 2 GiB)"},
		{"/dev/zero", "is a device, not a regular file"},
	} {
		_, err := ReadResultFile(c.path, "Phase 1 JSON")
		wantMonInputError(t, err, c.path, c.problem)
	}
}

func TestJSONProblem(t *testing.T) {
	var v struct {
		Phase int `json:"phase"`
	}
	for _, c := range []struct{ doc, want string }{
		{`{"phase": 1`, "truncated JSON: the file ends inside a value"},
		{`{"phase": }`, "invalid JSON at byte 11: invalid character '}' looking for beginning of value"},
		{`{"phase": "one"}`, "field phase holds a JSON string, expected a number"},
		{`[1]`, "the top-level value holds a JSON array, expected an object"},
	} {
		if got := JSONProblem(json.Unmarshal([]byte(c.doc), &v)); got != c.want {
			t.Errorf("%s: %q, want %q", c.doc, got, c.want)
		}
	}
	if JSONProblem(nil) != "" {
		t.Error("nil error worded")
	}
}

// A saved result of the reference scripts holds Python's bare NaN and
// Infinity tokens: they are decoded, the same words inside strings are
// left alone, and a syntax error is worded as in dump.json.
func TestDecodeResultNonFinite(t *testing.T) {
	var p1 model.Phase1Result
	doc := `{"db_path": "NaN \"Infinity\"", "anomalies": [{"rank": 1, "step": 2, "norm": NaN, "min": -Infinity, "max": Infinity}]}`
	if err := DecodeResult("p1.json", "Phase 1 JSON", []byte(doc), &p1); err != nil {
		t.Fatal(err)
	}
	a := p1.Anomalies[0]
	if p1.DBPath != `NaN "Infinity"` || !math.IsNaN(float64(a.Norm)) || !math.IsInf(float64(a.Min), -1) || !math.IsInf(float64(a.Max), 1) || a.Rank != 1 {
		t.Errorf("decoded %q %+v", p1.DBPath, a)
	}
	err := DecodeResult("p1.json", "Phase 1 JSON", []byte(`{"anomalies": [NaN, }`), &p1)
	wantMonInputError(t, err, "p1.json", "not a valid Phase 1 JSON: invalid JSON at byte 20: expected a value")
	err = DecodeResult("p1.json", "Phase 1 JSON", []byte(`{"anomalies": [Infin`), &p1)
	wantMonInputError(t, err, "p1.json", "not a valid Phase 1 JSON: truncated JSON")
}

// A named pipe with a writer is read whole, up to the limit; a writer that
// opens it late is waited for; devices stay refused.
func TestReadPipeableFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	write := func(delay time.Duration, content string) {
		go func() {
			time.Sleep(delay)
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteString(content)
			f.Close()
		}()
	}
	doc := `{"phase": 1, "anomalies": []}`
	write(200*time.Millisecond, doc) // opens after the reader
	if b, err := ReadResultFile(fifo, "Phase 1 JSON"); err != nil || string(b) != doc {
		t.Errorf("late writer: %q %v", b, err)
	}
	write(0, strings.Repeat("x", 101))
	_, err := ReadPipeableFile(fifo, "layer mapping", 100)
	wantMonInputError(t, err, fifo, "the pipe gave more than 100 bytes, too large for a layer mapping")
	write(0, "")
	_, err = ReadPipeableFile(fifo, "Phase 1 JSON", 100)
	wantMonInputError(t, err, fifo, "the pipe gave nothing (0 bytes), expected a Phase 1 JSON")
	_, err = ReadPipeableFile("/dev/zero", "Phase 1 JSON", 100)
	wantMonInputError(t, err, "/dev/zero", "is a device, not a regular file")
}
