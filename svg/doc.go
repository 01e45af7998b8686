// Package svg is a small writer of static SVG charts: a canvas of shapes
// and text, linear and logarithmic axes with ticks, and the Okabe–Ito
// colour-blind-safe palette. Output depends only on the calls made (numbers
// are printed with fixed precision), so a chart can be a golden file.
package svg
