package spill

import "syscall"

func release(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
		// read back a page at a time (no read-around): the analysis reads
		// few rows' values, spread over the column
		_ = syscall.Madvise(b, syscall.MADV_RANDOM)
	}
}
