//go:build linux

package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// writerWaitingCheck returns a function that reports whether another
// process holds the pending lock of the database at abs: in SQLite's unix
// locking a write lock on byte 0x40000000, which a writer in
// rollback-journal mode holds while it waits for the readers' shared locks
// to go before it commits. It is read from /proc/locks, which needs no
// descriptor of the file (closing one would drop this process's own SQLite
// locks on it). nil when it cannot be told.
func writerWaitingCheck(abs string) func() bool {
	st, err := os.Stat(abs)
	if err != nil {
		return nil
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	dev := uint64(sys.Dev)
	major, minor := (dev>>8)&0xfff, (dev&0xff)|((dev>>12)&0xfff00)
	id := []byte(fmt.Sprintf("%02x:%02x:%d", major, minor, sys.Ino))
	if _, err := os.Stat("/proc/locks"); err != nil {
		return nil
	}
	self := strconv.Itoa(os.Getpid())
	return func() bool {
		b, err := os.ReadFile("/proc/locks")
		if err != nil {
			return false
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			// "1: POSIX  ADVISORY  WRITE 12343 fe:00:9977874 1073741824 1073741825"
			f := bytes.Fields(sc.Bytes())
			if len(f) < 8 || string(f[1]) != "POSIX" || string(f[3]) != "WRITE" || string(f[4]) == self || !bytes.Equal(f[5], id) {
				continue
			}
			lo, err1 := strconv.ParseInt(string(f[6]), 10, 64)
			hi, err2 := strconv.ParseInt(string(f[7]), 10, 64)
			if err1 == nil && lo <= sqlitePendingByte && (err2 != nil || hi >= sqlitePendingByte) { // "EOF": to the end
				return true
			}
		}
		return false
	}
}
