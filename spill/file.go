package spill

import (
	"errors"
	"fmt"
	"os"
	"unsafe"
)

// Dir is where spill files go: $SPIKESCOPE_SPILL_DIR, else the system's
// temporary folder — unless that is held in memory (tmpfs, common for /tmp
// on cluster nodes), where a spill would take the very memory it is meant to
// save: then /var/tmp when that is on disk.
func Dir() string { return Candidates()[0] }

// Candidates are the folders a spill file may go to, best first: the one
// $SPIKESCOPE_SPILL_DIR names alone, else the system's temporary folder
// and /var/tmp, those held in memory last. A reader takes the first that
// lies outside its inputs (a trend.db kept in /tmp spills to /var/tmp).
func Candidates() []string {
	if d := os.Getenv("SPIKESCOPE_SPILL_DIR"); d != "" {
		return []string{d}
	}
	return ordered(os.TempDir(), "/var/tmp")
}

// ordered lists the folders that exist, on disk first, then held in
// memory; the first given when none exists.
func ordered(dirs ...string) []string {
	var disk, mem []string
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case err != nil || !st.IsDir():
		case InMemory(d):
			mem = append(mem, d)
		default:
			disk = append(disk, d)
		}
	}
	if out := append(disk, mem...); len(out) > 0 {
		return out
	}
	return dirs[:1]
}

// ErrUnsupported is returned where this system cannot map files.
var ErrUnsupported = errors.New("spill: memory-mapped files are not supported on this system")

// File is an unlinked temporary file that columns are appended to, each
// starting on a page boundary, and then mapped back (Map).
type File struct {
	f    *os.File
	size int64
	refs []Ref
}

// Ref locates one column written to a File.
type Ref struct {
	Off  int64 // byte offset, page aligned
	Len  int   // elements
	Size int   // bytes per element
}

// Create makes a new spill file in dir ("" = Dir()) and unlinks it at once.
func Create(dir string) (*File, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	if dir == "" {
		dir = Dir()
	}
	f, err := os.CreateTemp(dir, "spikescope-*.cols")
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("spill: %w", err)
	}
	return &File{f: f}, nil
}

// Over is a File whose columns are written over f from its start (f's
// caller has read what they overwrite): pages f already has in the page
// cache are rewritten instead of new ones taken, which cost the write most
// of its time on a VM. Closing it closes f.
func Over(f *os.File) (*File, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	return &File{f: f}, nil
}

// StartAt makes the next column start at off (rounded up to a page): a
// column written over the one it replaces takes no new disk. off must not
// be before the end of the columns written so far.
func (f *File) StartAt(off int64) error {
	if off < f.size {
		return fmt.Errorf("spill: a column cannot start at %d, before the end of the last one (%d)", off, f.size)
	}
	f.size = off
	return nil
}

// PageSize is the alignment of the columns written to a File.
func PageSize() int64 { return pageSize }

// Size is the number of bytes written so far (with page padding).
func (f *File) Size() int64 { return f.size }

// pageSize aligns columns so that each can be advised on its own.
var pageSize = int64(os.Getpagesize())

// write appends b (whole, retrying short writes) at the next page boundary.
func (f *File) write(b []byte, n, size int) (Ref, error) {
	off := (f.size + pageSize - 1) / pageSize * pageSize
	for done := 0; done < len(b); {
		w, err := f.f.WriteAt(b[done:], off+int64(done))
		if err != nil {
			return Ref{}, fmt.Errorf("spill: writing %d bytes to the temporary folder: %w", len(b), err)
		}
		done += w
	}
	f.size = off + int64(len(b))
	r := Ref{Off: off, Len: n, Size: size}
	f.refs = append(f.refs, r)
	return r, nil
}

// Float32s appends a column of float32.
func (f *File) Float32s(v []float32) (Ref, error) { return f.write(bytesOf(v), len(v), 4) }

// Int32s appends a column of int32.
func (f *File) Int32s(v []int32) (Ref, error) { return f.write(bytesOf(v), len(v), 4) }

// Float64s appends a column of float64.
func (f *File) Float64s(v []float64) (Ref, error) { return f.write(bytesOf(v), len(v), 8) }

// Append writes more elements right after the column r (which must be the
// last one written) and returns the grown column: a column written in
// pieces.
func (f *File) Append(r Ref, b []byte) (Ref, error) {
	if len(f.refs) == 0 || f.refs[len(f.refs)-1] != r || r.Size == 0 || len(b)%r.Size != 0 {
		return Ref{}, errors.New("spill: append to a column that is not the last one written")
	}
	at := r.Off + int64(r.Len*r.Size)
	for done := 0; done < len(b); {
		w, err := f.f.WriteAt(b[done:], at+int64(done))
		if err != nil {
			return Ref{}, fmt.Errorf("spill: writing %d bytes to the temporary folder: %w", len(b), err)
		}
		done += w
	}
	r.Len += len(b) / r.Size
	f.refs[len(f.refs)-1] = r
	f.size = at + int64(len(b))
	return r, nil
}

// Mapping is the whole file mapped into memory (private, read-write).
type Mapping struct{ b []byte }

// Map maps the file as written so far. The file can be closed afterwards.
func (f *File) Map() (*Mapping, error) {
	if f.size == 0 {
		return &Mapping{}, nil
	}
	b, err := mmap(f.f, f.size)
	if err != nil {
		return nil, fmt.Errorf("spill: mapping the temporary file: %w", err)
	}
	return &Mapping{b: b}, nil
}

// Close closes the file (mappings stay valid).
func (f *File) Close() error { return f.f.Close() }

// Unmap undoes the mapping, giving its file's disk back once the file is
// closed: only for a mapping whose columns nothing references any more (a
// read afterwards faults). A mapping of nothing, or one undone, is left.
func (m *Mapping) Unmap() error {
	if m == nil || m.b == nil {
		return nil
	}
	b := m.b
	m.b = nil
	return munmap(b)
}

func (m *Mapping) bytes(r Ref) []byte {
	if r.Len == 0 {
		return nil
	}
	return m.b[r.Off : r.Off+int64(r.Len*r.Size) : r.Off+int64(r.Len*r.Size)]
}

// Float32s is column r as float32 (len = cap: an append copies it to the heap).
func (m *Mapping) Float32s(r Ref) []float32 {
	b := m.bytes(r)
	if b == nil {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), r.Len)
}

// Int32s is column r as int32.
func (m *Mapping) Int32s(r Ref) []int32 {
	b := m.bytes(r)
	if b == nil {
		return []int32{}
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), r.Len)
}

// Float64s is column r as float64.
func (m *Mapping) Float64s(r Ref) []float64 {
	b := m.bytes(r)
	if b == nil {
		return []float64{}
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), r.Len)
}

// Release tells the kernel the pages of column r are not needed now: they
// leave the process's resident memory and are read from the file again when
// touched (pages changed in memory are lost: only for columns never
// written).
func (m *Mapping) Release(r Ref) { release(m.bytes(r)) }

// bytesOf views a slice of fixed-size numbers as bytes.
func bytesOf[T float32 | int32 | float64](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

// Bytes views a column of numbers as bytes (for Append).
func Bytes[T float32 | int32 | float64](v []T) []byte { return bytesOf(v) }
