//go:build unix

package spill

import (
	"os"
	"syscall"
)

const supported = true

func mmap(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}

func munmap(b []byte) error { return syscall.Munmap(b) }

// Free is the space left for an unprivileged writer in dir, in bytes.
func Free(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
