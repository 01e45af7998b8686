package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZDumpPlans(t *testing.T) {
	dir := os.Getenv("PLAN_DUMP")
	if dir == "" {
		t.Skip()
	}
	for i, pc := range planCases() {
		name := strings.NewReplacer(" ", "_", ",", "", "(", "", ")", "", "=", "", "/", "").Replace(pc.name)
		os.WriteFile(filepath.Join(dir, string(rune('a'+i))+"_"+name+".md"), []byte(Markdown(Build(pc.in), false)), 0o644)
	}
}
