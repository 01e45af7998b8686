package model

// The readers' warnings (ingest, and the pipeline's own about a load):
// problems that did not stop the load, kept as the values the reader
// found. Package words says them (words/load.go). A Path is the file or
// folder named; Err/Message is an error's or SQLite's own text, kept as
// it came.

// Why a trend.db was opened immutable (without SQLite's locking).
const (
	ImmutableNotWritable  = "not_writable"  // its folder is not writable, no journal or WAL
	ImmutableWALNoWriter  = "wal_no_writer" // WAL mode with no -wal or -shm file
	ImmutableReadOnlyFail = "open_failed"   // a read-only open failed (Message), no journal or WAL
	ImmutableForeignWAL   = "foreign_wal"   // its -wal (WAL) holds another file's pages (Foreign says how it shows)
)

// How a foreign write-ahead log shows (TrendImmutable.Foreign).
const (
	ForeignRollback = "rollback"  // the database is in rollback-journal mode
	ForeignPageSize = "page_size" // the log's page size WALPage is not the database's DBPage
	ForeignReplaced = "replaced"  // it was beside the file read before at this path, since replaced
)

// TrendImmutable: the trend.db was opened immutable, for Why (one of the
// Immutable* kinds; Message: SQLite's message with ImmutableReadOnlyFail;
// WAL, Foreign, WALPage, DBPage with ImmutableForeignWAL).
type TrendImmutable struct {
	Why, Message    string
	WAL, Foreign    string
	WALPage, DBPage int
}

func (TrendImmutable) Rule() string { return "load.trenddb.immutable" }

// TrendWriteTransaction: another process holds a write transaction
// (Journal exists); the last committed state was read.
type TrendWriteTransaction struct{ Journal string }

func (TrendWriteTransaction) Rule() string { return "load.trenddb.write_transaction" }

// TrendWAL: the database has a write-ahead log (WAL); its committed
// transactions were read.
type TrendWAL struct{ WAL string }

func (TrendWAL) Rule() string { return "load.trenddb.wal" }

// TrendAsOf is what a read of a changing database holds: with Locked, the
// data as of At (a clock time) with Rows data rows; else an immutable read
// that may mix a writer's changes.
type TrendAsOf struct {
	Locked bool
	At     string
	Rows   int
}

// TrendAppeared: File (the -journal or -wal companion) appeared while the
// database was read.
type TrendAppeared struct {
	File string
	AsOf TrendAsOf
}

func (TrendAppeared) Rule() string { return "load.trenddb.appeared" }

// TrendCommitted: another process committed while the database was read.
type TrendCommitted struct{ AsOf TrendAsOf }

func (TrendCommitted) Rule() string { return "load.trenddb.committed" }

// TrendNoRows: the database holds no data rows.
type TrendNoRows struct{}

func (TrendNoRows) Rule() string { return "load.trenddb.no_rows" }

// TrendFromDump: the trend.db was built from dump statistics (Metrics).
type TrendFromDump struct{ Metrics []string }

func (TrendFromDump) Rule() string { return "load.trenddb.from_dump" }

// TrendMetricAbsent: a Gen A table's metric_id is absent from
// monitoring_metrics.
type TrendMetricAbsent struct {
	Table  string
	Metric int64
}

func (TrendMetricAbsent) Rule() string { return "load.trenddb.metric_absent" }

// TrendGenA: an older Gen A monitor_metrics.db (MSTT csv2db).
type TrendGenA struct{}

func (TrendGenA) Rule() string { return "load.trenddb.gen_a" }

// TrendUnknownIDs: Rows rows refer to ids (IDs, the first few; More: there
// are more) absent from monitoring_targets (Metric false) or
// monitoring_metrics (Metric true).
type TrendUnknownIDs struct {
	Metric bool
	Rows   int64
	IDs    []int64
	More   bool
}

func (TrendUnknownIDs) Rule() string { return "load.trenddb.unknown_ids" }

// TrendBadKeyRows: Rows trend_data rows skipped, a key column not a usable
// integer; Problem: the first one's problem.
type TrendBadKeyRows struct {
	Rows    int64
	Problem string
}

func (TrendBadKeyRows) Rule() string { return "load.trenddb.bad_key_rows" }

// CellAt is a cell's place: rank, step and target name.
type CellAt struct {
	Rank, Step int64
	Target     string
}

// TrendBadCells: Cells cells of trend_data.Stat are not numbers (the first
// At; More: there are more); a norm's rows were left out, other
// statistics read as missing.
type TrendBadCells struct {
	Cells int64
	Stat  string
	At    []CellAt
	More  bool
}

func (TrendBadCells) Rule() string { return "load.trenddb.bad_cells" }

// TrendTextNumbers: Cells statistic cells held numbers written as text.
type TrendTextNumbers struct{ Cells int64 }

func (TrendTextNumbers) Rule() string { return "load.trenddb.text_numbers" }

// TrendDuplicateRows: Rows trend_data rows repeat an earlier row's key;
// First names the first repeat (rank, step, parameter and metric).
type TrendDuplicateRows struct {
	Rows           int
	Rank, Step     int64
	Target, Metric string
}

func (TrendDuplicateRows) Rule() string { return "load.trenddb.duplicate_rows" }

// TrendSeveralDBs: several databases in Dir; Read was read, Others not.
type TrendSeveralDBs struct {
	Dir, Read string
	Others    []string
}

func (TrendSeveralDBs) Rule() string { return "load.trenddb.several" }

// NamesEscaped: Count parameter (Operators: operator) names hold control
// characters, shown escaped (First: the first, escaped).
type NamesEscaped struct {
	Operators bool
	Count     int
	First     string
}

func (NamesEscaped) Rule() string { return "load.names.escaped" }

// StatNoNorm: no norm statistic recorded (Have: the statistics there are).
type StatNoNorm struct{ Have []string }

func (StatNoNorm) Rule() string { return "load.stat.no_norm" }

// StatAllMissing: Stat is missing in all Rows rows.
type StatAllMissing struct {
	Stat string
	Rows int
	Norm bool // the statistic is the norm spike detection compares
}

func (StatAllMissing) Rule() string { return "load.stat.all_missing" }

// GradsNone: no parameters_grad entries in the dumps of Path.
type GradsNone struct{ Path string }

func (GradsNone) Rule() string { return "load.grads.none" }

// GradsCallCounts: parameters_grad call counts differ within a step
// (parameter A has CountA calls, B CountB).
type GradsCallCounts struct {
	A      string
	CountA int
	B      string
	CountB int
}

func (GradsCallCounts) Rule() string { return "load.grads.call_counts" }

// GradsCallCounters: parameters_grad call counters differ between modules
// of Rank at Step in Path (Prev, Next: the two counters seen).
type GradsCallCounters struct {
	Path       string
	Rank, Step int
	Prev, Next []int
}

func (GradsCallCounters) Rule() string { return "load.grads.call_counters" }

// Empty dump.json kinds (DumpEmpty.Kind).
const (
	DumpEmptyBraces = "braces"  // dump.json is {}
	DumpNoData      = "no_data" // no "data" object
	DumpDataEmpty   = "empty"   // "data" is empty
)

// DumpEmpty: the dump.json at Path has 0 ops, for Kind.
type DumpEmpty struct{ Path, Kind string }

func (DumpEmpty) Rule() string { return "load.dump.empty" }

// DumpTaskNoStats: task Task records no Max/Min/Mean/Norm statistics.
type DumpTaskNoStats struct{ Path, Task string }

func (DumpTaskNoStats) Rule() string { return "load.dump.task_no_stats" }

// DumpNoStats: none of Tensors tensor records has Max/Min/Mean/Norm.
type DumpNoStats struct {
	Path    string
	Tensors int
	Task    string
}

func (DumpNoStats) Rule() string { return "load.dump.no_stats" }

// DumpBadKeys: Count data keys do not follow msprobe's key grammar (Keys:
// those listed).
type DumpBadKeys struct {
	Path  string
	Count int
	Keys  []string
}

func (DumpBadKeys) Rule() string { return "load.dump.bad_keys" }

// DumpDuplicateKeys: Count duplicate data keys (First: the first).
type DumpDuplicateKeys struct {
	Path  string
	Count int
	First string
}

func (DumpDuplicateKeys) Rule() string { return "load.dump.duplicate_keys" }

// DumpNotObjects: Count data entries are not objects (First: the first).
type DumpNotObjects struct {
	Path  string
	Count int
	First string
}

func (DumpNotObjects) Rule() string { return "load.dump.not_objects" }

// DumpSideIgnored: a construct.json or stack.json at Path was ignored
// (Err: why).
type DumpSideIgnored struct{ Path, Err string }

func (DumpSideIgnored) Rule() string { return "load.dump.side_ignored" }

// DumpSkipped: a dump.json that failed in a tree of several (Err: why).
type DumpSkipped struct{ Err string }

func (DumpSkipped) Rule() string { return "load.dump.skipped" }

// DumpSameStepRank: folders A and B are both Step, Rank; A is used.
type DumpSameStepRank struct {
	A, B       string
	Step, Rank int
}

func (DumpSameStepRank) Rule() string { return "load.dump.same_step_rank" }

// Kinds of DumpFolderSkipped.
const (
	FolderUnreadable = "unreadable"      // a sub-folder that could not be read (Err)
	FolderStepName   = "step_name"       // step folder name is not step<N>
	FolderNoDump     = "no_dump"         // no dump.json
	FolderCannotRead = "cannot_read"     // cannot read the folder (Err)
	FolderStepAsRank = "step_as_rank"    // a step folder where a rank folder should be
	FolderStepRank0  = "step_read_rank0" // the same, read as rank 0 (not skipped)
	FolderBothModes  = "both_modes"      // both graph and pynative dumps present (not skipped)
)

// DumpFolder: a folder of a dump tree at Path skipped or read otherwise,
// for Kind (Err: the error's text where the kind has one).
type DumpFolder struct{ Path, Kind, Err string }

func (DumpFolder) Rule() string { return "load.dump.folder" }

// MemoryNear: the monitor at Path (and the baseline at Baseline) holds
// about Rows rows, needing about Peak of memory, close to the limit of
// Limit (Default: the default fraction Percent of the memory the process
// may use, else --mem-limit).
type MemoryNear struct {
	Path, Baseline string
	Rows           int64
	Peak, Limit    string
	Default        bool
	Percent        float64
}

func (MemoryNear) Rule() string { return "load.memory.near" }

// MetricNotFound: the metric asked for was not found; Analysed was.
type MetricNotFound struct{ Asked, Analysed string }

func (MetricNotFound) Rule() string { return "load.metric_not_found" }

// CSVSkippedFiles: Skipped of Total monitor CSV files could not be read
// and were skipped.
type CSVSkippedFiles struct{ Skipped, Total int }

func (CSVSkippedFiles) Rule() string { return "load.csv.skipped_files" }

// CSVSkippedFile: one skipped file (Err: why, naming it).
type CSVSkippedFile struct{ Err string }

func (CSVSkippedFile) Rule() string { return "load.csv.skipped_file" }

// CSVMoreSkipped: Count more skipped files not named.
type CSVMoreSkipped struct{ Count int }

func (CSVMoreSkipped) Rule() string { return "load.csv.more_skipped" }

// CSVNoRows: the Files monitor CSV files hold no data rows.
type CSVNoRows struct{ Files int }

func (CSVNoRows) Rule() string { return "load.csv.no_rows" }

// CSVRuns: Rank has several run folders (Folders); Ordered: their time
// tags order them (then Dropped rows of earlier runs were dropped where
// they share steps; 0: they share no step).
type CSVRuns struct {
	Rank    int
	Folders []string
	Ordered bool
	Dropped int
}

func (CSVRuns) Rule() string { return "load.csv.runs" }

// CSVIncompleteLine: the last line (Line) of Path is incomplete: skipped.
type CSVIncompleteLine struct {
	Path string
	Line int
}

func (CSVIncompleteLine) Rule() string { return "load.csv.incomplete_line" }

// CSVBadLines: Count lines of Path are not data and were skipped
// (Problems: the first ones' problems; More: there are more).
type CSVBadLines struct {
	Path     string
	Count    int
	Problems []string
	More     bool
}

func (CSVBadLines) Rule() string { return "load.csv.bad_lines" }

// CSVHeaderOnly: Path holds a header only; Rank has nothing from it.
type CSVHeaderOnly struct {
	Path string
	Rank int
}

func (CSVHeaderOnly) Rule() string { return "load.csv.header_only" }

// CSVUnreadable: Path was skipped while listing the tree (Err: why).
type CSVUnreadable struct{ Path, Err string }

func (CSVUnreadable) Rule() string { return "load.csv.unreadable" }

// CSVNoRankFolder: Count monitor CSV files lie in no rank folder (Example:
// the first): rank 0 assumed.
type CSVNoRankFolder struct {
	Count   int
	Example string
}

func (CSVNoRankFolder) Rule() string { return "load.csv.no_rank_folder" }

// CSVNotMonitor: Count CSV files are not monitor metric files (Example:
// the first) and were ignored.
type CSVNotMonitor struct {
	Count   int
	Example string
}

func (CSVNotMonitor) Rule() string { return "load.csv.not_monitor" }

// CSVFileName: a CSV given directly whose name is not
// <metric>_<a>-<b>.csv; its metric is named Metric.
type CSVFileName struct{ Path, Metric string }

func (CSVFileName) Rule() string { return "load.csv.file_name" }

// CSVNotRankFolder: a CSV given directly whose folder is not a rank
// folder: rank 0 assumed.
type CSVNotRankFolder struct{ Path string }

func (CSVNotRankFolder) Rule() string { return "load.csv.not_rank_folder" }

// FollowListFailed: the monitor CSVs could not be listed (Err); the rows
// read so far are kept.
type FollowListFailed struct{ Err string }

func (FollowListFailed) Rule() string { return "load.follow.list_failed" }

// FollowNewRunFolder: a rank of the tree at Path now has several run
// folders: the whole tree is read again.
type FollowNewRunFolder struct{ Path string }

func (FollowNewRunFolder) Rule() string { return "load.follow.new_run_folder" }

// FollowCut: the file at Path was replaced (Replaced) or shrank, Before
// bytes read before, Now bytes now: the whole tree is read again.
type FollowCut struct {
	Path        string
	Replaced    bool
	Before, Now int64
}

func (FollowCut) Rule() string { return "load.follow.cut" }

// FollowWrittenAnew: the file at Path was written anew (its line Line no
// longer ends where it did): the whole tree is read again.
type FollowWrittenAnew struct {
	Path string
	Line int
}

func (FollowWrittenAnew) Rule() string { return "load.follow.written_anew" }

// FollowSkippedNew: new lines skipped (Err: why, naming the file).
type FollowSkippedNew struct{ Err string }

func (FollowSkippedNew) Rule() string { return "load.follow.skipped_new" }

// FollowRereadFailed: reading the tree again failed (Err); the rows read
// before are kept.
type FollowRereadFailed struct{ Err string }

func (FollowRereadFailed) Rule() string { return "load.follow.reread_failed" }

// FollowDBUnreadable: the database changed but cannot be read yet (Err).
type FollowDBUnreadable struct{ Err string }

func (FollowDBUnreadable) Rule() string { return "load.follow.db_unreadable" }

// FollowNowReading: the followed database is now File (was Was).
type FollowNowReading struct{ File, Was string }

func (FollowNowReading) Rule() string { return "load.follow.now_reading" }

// RankMissingSteps: Rank has Have of Total steps (Missing: the steps it
// lacks, as a compact list "0-1,5").
type RankMissingSteps struct {
	Rank, Have, Total int
	Missing           string
}

func (RankMissingSteps) Rule() string { return "load.rank_missing_steps" }

// MoreRanksMissingSteps: Count more ranks miss steps.
type MoreRanksMissingSteps struct{ Count int }

func (MoreRanksMissingSteps) Rule() string { return "load.more_ranks_missing_steps" }
