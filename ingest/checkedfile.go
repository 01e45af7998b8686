package ingest

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// Size limits of the files spikescope reads whole. A file over its limit is
// refused before it is read, with a message that names the limit.
const (
	// MaxSideFileBytes bounds construct.json and stack.json (the same rule
	// as dump.json: they are read whole into memory).
	MaxSideFileBytes = maxDumpJSONBytes
	// MaxConfigFileBytes bounds a small configuration file given on the
	// command line (a layer mapping, …).
	MaxConfigFileBytes = 64 << 20
)

// OpenInputFile opens path for reading after the checks every input file
// gets: it exists (a broken link is named), is not a folder, is a regular
// file (a named pipe, device or socket is refused — reading one may block
// forever or never end), is not empty and holds at most maxBytes (0: no
// limit). what names the file in messages ("construct.json", "layer
// mapping"). The file is opened without blocking and checked again through
// its descriptor, so a path swapped for a pipe between the checks is still
// refused. The caller closes the file.
func OpenInputFile(path, what string, maxBytes int64) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, statError(path, err)
	}
	if err := checkInputInfo(path, what, st, maxBytes); err != nil {
		return nil, nil, err
	}
	// O_NONBLOCK: opening a FIFO that appeared after the Stat returns at
	// once instead of waiting for a writer; fstat below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, openError(path, err)
	}
	fst, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, inputErr(path, err, "cannot read: %v", unwrapPathError(err))
	}
	if err := checkInputInfo(path, what, fst, maxBytes); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !os.SameFile(st, fst) {
		f.Close()
		return nil, nil, inputErr(path, nil, "was replaced while it was being opened; try again")
	}
	return f, fst, nil
}

// checkInputInfo applies OpenInputFile's rules to one FileInfo.
func checkInputInfo(path, what string, st os.FileInfo, maxBytes int64) error {
	if st.IsDir() {
		return inputErr(path, nil, "is a folder, expected a %s file", what)
	}
	if err := notRegular(path, st); err != nil {
		return err
	}
	if st.Size() == 0 {
		return inputErr(path, nil, "empty file (0 bytes), expected a %s", what)
	}
	if maxBytes > 0 && st.Size() > maxBytes {
		return inputErr(path, nil, "%s is too large for a %s (at most %s)", sizeText(st.Size()), what, sizeText(maxBytes))
	}
	return nil
}

// ReadInputFile reads a whole input file through OpenInputFile. A file that
// grows past maxBytes while it is read is refused too.
func ReadInputFile(path, what string, maxBytes int64) ([]byte, error) {
	f, st, err := OpenInputFile(path, what, maxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllLimited(f, path, what, st.Size(), maxBytes)
}

// readAllLimited reads f whole (size is its size when opened), refusing more
// than maxBytes (0: no limit).
func readAllLimited(f *os.File, path, what string, size, maxBytes int64) ([]byte, error) {
	var r io.Reader = f
	if maxBytes > 0 {
		r = io.LimitReader(f, maxBytes+1)
	}
	buf := make([]byte, 0, size+512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, inputErr(path, err, "cannot read: %v", unwrapPathError(err))
		}
	}
	if maxBytes > 0 && int64(len(buf)) > maxBytes {
		return nil, inputErr(path, nil, "grew past %s while it was read, too large for a %s", sizeText(maxBytes), what)
	}
	return buf, nil
}

// sizeText prints a byte count for a message: "1.5 GB", "64 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadPipeableFile is ReadInputFile for the small files a user may hand
// over through a pipe (a saved result, a layer mapping: `--phase1 <(…)`):
// a named pipe is read to its end, up to maxBytes (it has no size to check
// first), and refused as empty when it gave nothing. Everything else gets
// ReadInputFile's checks; devices and sockets stay refused.
func ReadPipeableFile(path, what string, maxBytes int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, statError(path, err)
	}
	if st.Mode()&os.ModeNamedPipe == 0 {
		return ReadInputFile(path, what, maxBytes)
	}
	f, err := openPipeForReading(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, inputErr(path, err, "cannot read: %v", unwrapPathError(err))
	}
	if fst.Mode()&os.ModeNamedPipe == 0 {
		// swapped between the Stat and the Open: the regular checks
		return ReadInputFile(path, what, maxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, inputErr(path, err, "cannot read: %v", unwrapPathError(err))
	}
	if int64(len(b)) > maxBytes {
		return nil, inputErr(path, nil, "the pipe gave more than %s, too large for a %s", sizeText(maxBytes), what)
	}
	if len(b) == 0 {
		return nil, inputErr(path, nil, "the pipe gave nothing (0 bytes), expected a %s", what)
	}
	return b, nil
}

// PipeWriterWait is how long a named pipe given as a result file waits for
// a program to open it for writing (process substitution has one from the
// start; a pipe made with mkfifo that nothing writes into is refused).
var PipeWriterWait = 10 * time.Second

// openPipeForReading opens the named pipe at path for reading, waiting up
// to PipeWriterWait for its writer. Opening without O_NONBLOCK is what
// waits: a non-blocking open reads an early end of file when the writer
// has not opened its end yet.
func openPipeForReading(path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, openError(path, o.err)
		}
		return o.f, nil
	case <-time.After(PipeWriterWait):
	}
	// release the waiting open: a writer's open meets it, and both close
	if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	go func() {
		if o := <-ch; o.f != nil {
			o.f.Close()
		}
	}()
	return nil, inputErr(path, nil, "is a named pipe that no program wrote into within %v", PipeWriterWait)
}
