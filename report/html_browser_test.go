package report

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// chromiumPath finds Debian's chromium; without it the browser test skips
// on a developer's machine and fails in CI (CI set), where .ci/run installs it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; CI must install it (.ci/run: apt-get install -y chromium)")
	}
	t.Skip("skipped: chromium is not installed (apt-get install -y chromium); CI runs this test")
	return ""
}

// screenshot renders the HTML file page with headless Chromium into a PNG.
func screenshot(t *testing.T, chromium, page string) image.Image {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+out, "--window-size=1200,2000",
		"file://"+page)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, msg)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if keep := os.Getenv("SPIKESCOPE_KEEP_PNG"); keep != "" {
		data, _ := os.ReadFile(out)
		os.WriteFile(filepath.Join(keep, filepath.Base(filepath.Dir(page))+".png"), data, 0o644)
	}
	return img
}

// inkCounts counts the pixels that are not near white, and those near the
// plots' vermilion (#D55E00: the spike marker, the bars over the threshold).
func inkCounts(img image.Image) (ink, vermilion int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 235 || g < 235 || bl < 235 {
				ink++
			}
			if absDiff(r, 0xD5) < 30 && absDiff(g, 0x5E) < 30 && absDiff(bl, 0x00) < 30 {
				vermilion++
			}
		}
	}
	return ink, vermilion
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// A real browser renders the demo's HTML report (the golden file, in both
// languages): the page is not blank and the plots' marks are drawn.
func TestBrowserRendersDemoHTML(t *testing.T) {
	chromium := chromiumPath(t)
	for _, lang := range []string{"en", "zh"} {
		t.Run(lang, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join("testdata", "demo_"+lang+".golden.html"))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "demo_"+lang)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "report.html")
			if err := os.WriteFile(path, page, 0o644); err != nil {
				t.Fatal(err)
			}
			img := screenshot(t, chromium, path)
			if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 2000 {
				t.Fatalf("screenshot %v, want 1200×2000", b)
			}
			ink, verm := inkCounts(img)
			total := 1200 * 2000
			// text, tables and two plots fill far more than 3% of the
			// first screen; the spike marker and heat-map colours are there
			if ink < total*3/100 {
				t.Errorf("page nearly blank: %d of %d pixels not white", ink, total)
			}
			if verm < 30 {
				t.Errorf("no plot marks drawn: %d vermilion pixels", verm)
			}
		})
	}
}
