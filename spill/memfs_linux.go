package spill

import "syscall"

// Linux magic numbers of file systems held in memory (statfs(2)).
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// InMemory reports whether dir's file system keeps its files in memory.
func InMemory(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == tmpfsMagic || st.Type == ramfsMagic
}
