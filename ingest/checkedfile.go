package ingest

import (
	"fmt"
	"io"
	"os"
	"syscall"
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
