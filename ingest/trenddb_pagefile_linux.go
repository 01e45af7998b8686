//go:build linux

package ingest

import (
	"syscall"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteFileFD is the descriptor through which c reads its main database
// and the file's size: SQLite's unix VFS keeps it in its unixFile (the
// sqlite3_file that SQLITE_FCNTL_FILE_POINTER gives). false when c's
// database is not read through the unix VFS or is not a regular file.
func sqliteFileFD(c *rawConn) (fd int, size int64, ok bool) {
	pp := c.tls.Alloc(int(ptrSize))
	defer c.tls.Free(int(ptrSize))
	z := mainSchema(c.tls)
	defer libc.Xfree(c.tls, z)
	if rc := sqlite3.Xsqlite3_file_control(c.tls, c.db, z, sqlite3.SQLITE_FCNTL_VFS_POINTER, pp); rc != sqlite3.SQLITE_OK {
		return -1, 0, false
	}
	vfs := libc.AtomicLoadPUintptr(pp)
	if vfs == 0 || libc.GoString(libc.AtomicLoadPUintptr(vfs+unsafe.Offsetof(sqlite3.Tsqlite3_vfs{}.FzName))) != "unix" {
		return -1, 0, false
	}
	if rc := sqlite3.Xsqlite3_file_control(c.tls, c.db, z, sqlite3.SQLITE_FCNTL_FILE_POINTER, pp); rc != sqlite3.SQLITE_OK {
		return -1, 0, false
	}
	file := libc.AtomicLoadPUintptr(pp)
	var u sqlite3.TunixFile
	if file == 0 || libc.AtomicLoadPUintptr(file+unsafe.Offsetof(u.FpMethod)) == 0 || libc.AtomicLoadPUintptr(file+unsafe.Offsetof(u.FpVfs)) != vfs {
		return -1, 0, false // not open, or not the unix VFS's file
	}
	fd = int(libc.AtomicLoadPInt32(file + unsafe.Offsetof(u.Fh)))
	var st syscall.Stat_t
	if fd < 0 || syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return -1, 0, false
	}
	return fd, st.Size, true
}

// pread reads from fd at off, retrying when interrupted.
func pread(fd int, b []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pread(fd, b, off)
		if err != syscall.EINTR {
			return n, err
		}
	}
}
