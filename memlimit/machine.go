package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// DefaultFraction is the share of the memory this process may use that the
// default budget allows: the rest is left to the page cache, the other
// processes and the estimate's error.
const DefaultFraction = 0.75

// Budget is the memory a run may use.
type Budget struct {
	Bytes int64 // 0: no limit
	// Default tells that Bytes is DefaultFraction of the machine's memory,
	// not a --mem-limit the user gave.
	Default bool
}

// Default is DefaultFraction of Available; no limit when it is unknown.
func Default() Budget {
	avail := Available()
	if avail <= 0 {
		return Budget{}
	}
	return Budget{Bytes: int64(float64(avail) * DefaultFraction), Default: true}
}

// Describe words the budget for a sentence: "the memory limit of 6.0 GB
// (75% of the memory this process may use)".
func (b Budget) Describe() string {
	if b.Default {
		return fmt.Sprintf("the memory limit of %s (%.0f%% of the memory this process may use)", Text(b.Bytes), DefaultFraction*100)
	}
	return fmt.Sprintf("the memory limit of %s (--mem-limit)", Text(b.Bytes))
}

// Available is the memory this process may use: the smaller of the
// kernel's MemAvailable and the cgroup limits of the process's cgroup and
// its parents (v2 memory.max, v1 memory.limit_in_bytes); 0 when none of
// them can be read.
func Available() int64 { return availableFrom("/proc", "/sys/fs/cgroup") }

// availableFrom is Available with the /proc and cgroup mounts at proc and
// cgroup (a test's fixture tree).
func availableFrom(proc, cgroup string) int64 {
	var best int64
	take := func(n int64, ok bool) {
		if ok && n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	if b, err := readSmall(path.Join(proc, "meminfo")); err == nil {
		take(ParseMemAvailable(b))
	}
	cg, err := readSmall(path.Join(proc, "self/cgroup"))
	if err != nil {
		cg = nil // no cgroup file: the mount roots below still apply
	}
	v2, v1 := ParseProcCgroup(cg)
	for _, dir := range cgroupDirs(cgroup, v2) {
		if b, err := readSmall(path.Join(dir, "memory.max")); err == nil {
			take(ParseCgroupV2Max(b))
		}
	}
	for _, dir := range cgroupDirs(path.Join(cgroup, "memory"), v1) {
		if b, err := readSmall(path.Join(dir, "memory.limit_in_bytes")); err == nil {
			take(ParseCgroupV1Limit(b))
		}
	}
	return best
}

// cgroupDirs lists root/rel and each of its parents up to root: a limit
// set on any ancestor applies, and inside a container the process's own
// path is often not present under the mount (the mount is its cgroup).
func cgroupDirs(root, rel string) []string {
	var dirs []string
	rel = path.Clean("/" + rel)
	for {
		dirs = append(dirs, path.Join(root, rel))
		if rel == "/" {
			return dirs
		}
		rel = path.Dir(rel)
	}
}

// ParseMemAvailable reads MemAvailable (kB) of /proc/meminfo, in bytes.
func ParseMemAvailable(b []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemAvailable" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 || n > (1<<53) {
			return 0, false
		}
		if len(f) > 1 && f[1] != "kB" {
			return 0, false
		}
		return n << 10, true
	}
	return 0, false
}

// ParseProcCgroup reads /proc/self/cgroup: the v2 path (the "0::" line)
// and the v1 memory controller's path ("N:memory:" or one listing memory
// among others); "" for one that is absent.
func ParseProcCgroup(b []byte) (v2, v1 string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			v2 = f[2]
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "memory" {
				v1 = f[2]
			}
		}
	}
	return v2, v1
}

// ParseCgroupV2Max reads a cgroup v2 memory.max: a byte count, or "max"
// (no limit: false).
func ParseCgroupV2Max(b []byte) (int64, bool) {
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// v1Unlimited is where cgroup v1 starts to mean no limit: an unlimited
// memory.limit_in_bytes reads as the page-rounded 2^63-1
// (9223372036854771712), never a real machine's memory.
const v1Unlimited = 1 << 62

// ParseCgroupV1Limit reads a cgroup v1 memory.limit_in_bytes; the huge
// value the kernel shows for no limit is false.
func ParseCgroupV1Limit(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil && n > 0 && n < v1Unlimited
}

// maxSystemFileBytes bounds what is read of a /proc or /sys file: these are
// a few hundred bytes; more is not the file we expect.
const maxSystemFileBytes = 64 << 10

// readSmall reads a kernel file under the checked-opener rules of the
// project (ingest.OpenInputFile): opened without blocking, a regular file
// checked through its descriptor, and bounded in size. The empty-file rule
// does not apply: /proc and cgroup files report size 0 and are read until
// EOF, so the bound is on the bytes read.
func readSmall(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSystemFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSystemFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, maxSystemFileBytes)
	}
	return b, nil
}

// Apply sets the Go runtime's soft memory limit to the budget, so that the
// collector runs more often as the heap nears it instead of letting garbage
// grow to GOGC's double of the live heap. No limit, or GOMEMLIMIT in the
// environment (the user's own runtime limit wins), leaves it alone. The
// returned function restores the limit before: a command run in a test
// process must not leave its budget to the next (`defer Apply(b)()`).
func Apply(b Budget) (restore func()) {
	if b.Bytes <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(b.Bytes)
	return func() { debug.SetMemoryLimit(prev) }
}
