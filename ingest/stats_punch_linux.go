//go:build linux

package ingest

import (
	"os"
	"syscall"
)

// punchHole gives the file's bytes off..off+n-1 back (their page-cache
// pages freed, a hole read as zeros), a best effort: the parked steps,
// read back, give their disk back while the file stays mapped (sortRows).
func punchHole(f *os.File, off, n int64) {
	const keepSizePunchHole = 0x01 | 0x02 // FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE
	_ = syscall.Fallocate(int(f.Fd()), keepSizePunchHole, off, n)
}
