//go:build !linux

package ingest

// sqliteFileFD: the database file is read through sqlite_dbpage here.
func sqliteFileFD(c *rawConn) (fd int, size int64, ok bool) { return -1, 0, false }

func pread(fd int, b []byte, off int64) (int, error) { return 0, errNotClean }
