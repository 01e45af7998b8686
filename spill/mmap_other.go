//go:build !unix

package spill

import "os"

const supported = false

func mmap(*os.File, int64) ([]byte, error) { return nil, ErrUnsupported }

func munmap([]byte) error { return ErrUnsupported }

// Free is unknown here.
func Free(string) (int64, bool) { return 0, false }
