package svg

// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design"), safe for
// the common colour-vision deficiencies.
const (
	Black     = "#000000"
	Orange    = "#E69F00"
	SkyBlue   = "#56B4E9"
	Green     = "#009E73"
	Yellow    = "#F0E442"
	Blue      = "#0072B2"
	Vermilion = "#D55E00"
	Purple    = "#CC79A7"
	Grey      = "#999999"
	Ink       = "#333333" // axes and labels
)

// Sequential returns a colour for t in [0, 1] on a light-to-dark blue ramp
// (lightness carries the value, so it reads without hue discrimination).
func Sequential(t float64) string {
	if t != t || t < 0 {
		t = 0
	}
	if t > 1 {
		t = 1
	}
	// from #F7FBFF to #08306B
	r := 247 + (8-247)*t
	g := 251 + (48-251)*t
	b := 255 + (107-255)*t
	return "#" + hex2(r) + hex2(g) + hex2(b)
}

func hex2(v float64) string {
	const digits = "0123456789ABCDEF"
	n := int(v + 0.5)
	return string([]byte{digits[n>>4], digits[n&15]})
}
