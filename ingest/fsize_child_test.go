package ingest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// fsizeChildEnv marks the child process a file-size-limit test runs in.
const fsizeChildEnv = "SPIKESCOPE_TEST_FSIZE_CHILD"

// inFileSizeChild runs the calling test alone in a child process and
// reports false in the parent (the caller returns); true in the child,
// where the test goes on. RLIMIT_FSIZE is process-wide: lowered in the
// test binary itself it also failed the test framework's own log
// (testlog.txt: "file too large") and whatever ran beside the test.
func inFileSizeChild(t *testing.T) bool {
	t.Helper()
	if os.Getenv(fsizeChildEnv) != "" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fsizeChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("in the child: %s", lastLines(string(out), 3))
	case err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("the test failed in its child process (%v):\n%s", err, out)
	}
	return false
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
