// Package memlimit is the memory budget of a run (--mem-limit): what this
// process may use (MemAvailable and the cgroup limit), the parsing of a size
// given by the user, and the peak memory expected for a monitor input of a
// given number of rows, checked before any row is read.
package memlimit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize reads a size as a user writes it: plain bytes ("1048576"), or a
// number with a binary suffix K, M, G or T (optionally followed by B or iB:
// "512M", "8G", "1.5GiB"). "0" is no limit. Negative, empty, unknown suffixes
// and sizes past 2^63 bytes are errors whose text quotes the value.
func ParseSize(s string) (int64, error) {
	bad := fmt.Errorf("%q is not a size: give bytes, or a number with K, M, G or T (e.g. 512M, 8G; 0 = no limit)", s)
	num, mult := splitUnit(strings.TrimSpace(s))
	if num == "" || strings.ContainsAny(num, "+-_") {
		return 0, bad
	}
	if mult == 1 {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, bad
		}
		return n, nil
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
		return 0, bad
	}
	return int64(v * mult), nil
}

// splitUnit splits "512M" into "512" and 2^20 ("1.5GiB", "8gb" alike); a
// bare "B" or no suffix is bytes.
func splitUnit(t string) (string, float64) {
	up := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}} {
		for _, tail := range []string{"IB", "B", ""} {
			if strings.HasSuffix(up, u.suffix+tail) {
				return strings.TrimSpace(t[:len(t)-len(u.suffix+tail)]), u.mult
			}
		}
	}
	return strings.TrimSpace(strings.TrimSuffix(up, "B")), 1
}

// Text prints a byte count for a sentence in the binary units --mem-limit
// takes: "512 MiB", "7.5 GiB".
func Text(n int64) string {
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.1f TiB", float64(n)/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
