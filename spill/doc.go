// Package spill keeps columns of numbers in a temporary file outside every
// input and maps them back into memory, so that data the analysis rarely
// reads (min, max and mean of every monitor row) or data larger than the
// memory budget is held by the page cache — read from disk on demand,
// dropped by the kernel under pressure — instead of the process's heap.
//
// The file is unlinked as soon as it is created: nothing is left behind when
// spikescope exits or is killed, and nothing is ever written beside an
// input. Mappings are private (copy-on-write): a write to a mapped column
// changes memory only, never the file. A mapping whose columns were handed
// out lives until the process exits (they may be shared by copies of the
// rows that hold them); one read only by its maker (the out-of-core sort's
// chunks) is undone when done (Unmap), giving its disk back.
package spill
