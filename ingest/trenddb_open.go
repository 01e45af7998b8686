package ingest

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"; CGO_ENABLED=0 builds
)

// sqliteMagic is the first 16 bytes of every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// checkFileReadable stats path and reads its first bytes, turning every way
// a file can be unusable into an InputError with its own message. It returns
// the head (up to len(sqliteMagic) bytes).
func checkFileReadable(path string) ([]byte, error) {
	f, _, err := OpenInputFile(path, "database", 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, inputErr(path, err, "cannot read: %v", unwrapPathError(err))
	}
	return head[:n], nil
}

// notRegular refuses a named pipe, device or socket: reading one may block
// forever or never end (a FIFO, /dev/zero), and none holds msprobe data.
func notRegular(path string, st os.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() || m.IsDir() {
		return nil
	}
	what := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return inputErr(path, nil, "is %s, not a regular file", what)
}

// statError words an os.Stat failure.
func statError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if target, lerr := os.Readlink(path); lerr == nil {
			return inputErr(path, err, "broken symbolic link: its target %s does not exist", target)
		}
		return inputErr(path, err, "does not exist")
	}
	if errors.Is(err, fs.ErrPermission) {
		return inputErr(path, err, "cannot read: permission denied")
	}
	return inputErr(path, err, "cannot access: %v", unwrapPathError(err))
}

// openError words an os.Open / ReadDir failure.
func openError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return inputErr(path, err, "cannot read: permission denied")
	}
	if errors.Is(err, fs.ErrNotExist) {
		return inputErr(path, err, "does not exist")
	}
	return inputErr(path, err, "cannot read: %v", unwrapPathError(err))
}

// unwrapPathError drops the "op path:" prefix of a *fs.PathError, since the
// InputError already names the path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isSQLiteHead reports whether head starts with the SQLite magic string.
func isSQLiteHead(head []byte) bool {
	return bytes.HasPrefix(head, []byte(sqliteMagic))
}

// openSQLiteReadOnly opens path read-only in the mode planSQLiteOpen
// chooses (see trenddb_mode.go), or immutable when its -wal is another
// file's (trenddb_wal.go); nothing is ever written to the database.
func openSQLiteReadOnly(path string) (*sql.DB, *sqliteOpenPlan, error) {
	plan, err := planSQLiteRead(path)
	if err != nil {
		return nil, nil, err
	}
	db, err := sql.Open("sqlite", fmt.Sprintf("%s&_busy_timeout=%d", plan.uri, sqliteBusyTimeout.Milliseconds()))
	if err != nil {
		return nil, nil, inputErr(path, err, "cannot open SQLite database: %v", err)
	}
	return db, plan, nil
}

// planSQLiteRead checks that path is an SQLite database and chooses how
// to open it (see openSQLiteReadOnly).
func planSQLiteRead(path string) (*sqliteOpenPlan, error) {
	head, err := checkFileReadable(path)
	if err != nil {
		return nil, err
	}
	if !isSQLiteHead(head) {
		return nil, inputErr(path, nil, "not an SQLite database (file header is not %q)", strings.TrimRight(sqliteMagic, "\x00"))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, inputErr(path, err, "cannot resolve path: %v", err)
	}
	if why, r := foreignWALWhy(abs); why != "" {
		// SQLite would replay another file's log over this one: immutable
		// is the only open that leaves the -wal (and -shm) out
		return &sqliteOpenPlan{uri: sqliteURI(abs, true), mode: ReadModeWithoutWAL, why: why, whyR: r, abs: abs, sideAt: sqliteSide(abs), stampAt: fileStamp(abs)}, nil
	}
	return planSQLiteOpen(path, abs)
}

// sqlColumn is one row of PRAGMA table_info.
type sqlColumn struct {
	Name string
	Type string // declared type, upper case
}

// tableColumns returns the columns of table keyed by lower-case name.
func tableColumns(c *rawConn, table string) (map[string]sqlColumn, error) {
	rows, err := c.queryAll(`SELECT name, type FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	cols := map[string]sqlColumn{}
	for _, row := range rows {
		name := cellString(row[0])
		cols[strings.ToLower(name)] = sqlColumn{Name: name, Type: strings.ToUpper(strings.TrimSpace(cellString(row[1])))}
	}
	return cols, nil
}

// listTablesRaw is listTables on a raw connection.
func listTablesRaw(c *rawConn) ([]string, error) {
	rows, err := c.queryAll(`SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		out[i] = cellString(row[0])
	}
	return out, nil
}

// listTables returns the names of all tables in the database.
func listTables(db *sql.DB) ([]string, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// columnAffinity applies SQLite's affinity rules (datatype3 §3.1) to a
// declared column type.
func columnAffinity(decl string) string {
	switch {
	case strings.Contains(decl, "INT"):
		return "INTEGER"
	case strings.Contains(decl, "CHAR"), strings.Contains(decl, "CLOB"), strings.Contains(decl, "TEXT"):
		return "TEXT"
	case decl == "" || strings.Contains(decl, "BLOB"):
		return "BLOB"
	case strings.Contains(decl, "REAL"), strings.Contains(decl, "FLOA"), strings.Contains(decl, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// numericColumnOK reports whether a declared type can hold the numbers we
// expect: anything but text affinity or an explicit BLOB. An undeclared type
// (affinity BLOB, stores values as given) is accepted.
func numericColumnOK(decl string) bool {
	switch columnAffinity(decl) {
	case "TEXT":
		return false
	case "BLOB":
		return decl == ""
	}
	return true
}

// requireColumns checks that table has every column in want (lower-case) and
// that the numeric ones have a numeric type. It names every missing column.
func requireColumns(path, table string, cols map[string]sqlColumn, want []string, numeric map[string]bool) error {
	var missing []string
	for _, w := range want {
		if _, ok := cols[w]; !ok {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return inputErr(path, nil, "table %s lacks column(s) %s", table, strings.Join(missing, ", "))
	}
	for _, w := range want {
		if numeric[w] && !numericColumnOK(cols[w].Type) {
			return inputErr(path, nil, "column %s.%s has type %s, expected a number (INTEGER or REAL)", table, w, cols[w].Type)
		}
	}
	return nil
}

// sqliteProblem words an error returned by SQLite while reading path: a
// damaged file gets "corrupt", anything else the driver's text.
func sqliteProblem(path string, err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "corrupt"), strings.Contains(msg, "not a database"):
		return inputErr(path, err, "corrupt SQLite database (%s)", oneLine(msg))
	}
	return inputErr(path, err, "cannot read SQLite database: %s", oneLine(msg))
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// genATableRE matches the Gen A partition tables metric_{id}_step_{a}_{b}.
var genATableRE = regexp.MustCompile(`^metric_(\d+)_step_(\d+)_(\d+)$`)

// describeTables lists table names for an error message, shortened.
func describeTables(tables []string) string {
	if len(tables) == 0 {
		return "no tables"
	}
	const maxShown = 8
	if len(tables) > maxShown {
		return fmt.Sprintf("tables %s, … (%d in all)", strings.Join(tables[:maxShown], ", "), len(tables))
	}
	return "tables " + strings.Join(tables, ", ")
}
