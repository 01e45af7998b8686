package words

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"spikescope/model"
)

// The readers' warnings (model/reasons_load.go).

// Monitor fills d.Warnings in l from d.WarningsReasons (the reader's), when
// there are reasons.
func Monitor(d *model.MonitorData, l Lang) {
	if d != nil {
		fillAll(&d.Warnings, d.WarningsReasons, l)
	}
}

// DumpTree fills the warnings of t and of its dumps in l from their
// reasons.
func DumpTree(t *model.DumpTree, l Lang) {
	if t == nil {
		return
	}
	fillAll(&t.Warnings, t.WarningsReasons, l)
	for _, d := range t.Dumps {
		if d != nil {
			fillAll(&d.Warnings, d.WarningsReasons, l)
		}
	}
}

// Texts says texts in l: each text that is the English sentence of one of
// reasons is said from it, the others stay as they are (texts of a saved
// result, or not yet kept as reasons).
func Texts(texts []string, reasons []model.Reason, l Lang) []string {
	if len(reasons) == 0 || l != Chinese {
		return texts
	}
	by := make(map[string]model.Reason, len(reasons))
	for _, r := range reasons {
		by[Say(r, English)] = r
	}
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = s
		if r, ok := by[s]; ok {
			out[i] = Say(r, l)
		}
	}
	return out
}

func asOf(a model.TrendAsOf, zh bool) string {
	if !a.Locked {
		return pick(zh, "the read was immutable (without SQLite's locking) and may mix its changes with what was there; run again when it has finished for a consistent view",
			"本次为 immutable 读取（不加 SQLite 锁），可能混入其改动；请在写入结束后重新运行以得到一致的数据")
	}
	return pick(zh, fmt.Sprintf("the analysis is of the data as of %s, when the read began (%d data rows); what was committed since is not in it — run again to include it", a.At, a.Rows),
		fmt.Sprintf("分析的是读取开始时 %s 的数据（%d 行）；此后提交的数据未包含在内，重新运行可纳入", a.At, a.Rows))
}

func ids(xs []int64, more bool) string {
	parts := make([]string, 0, len(xs)+1)
	for _, x := range xs {
		parts = append(parts, strconv.FormatInt(x, 10))
	}
	if more {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}

// rowsText is a row count in words: "1.2 million", "12,345".
func rowsText(n int64, zh bool) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f %s", float64(n)/1e9, pick(zh, "billion", "十亿"))
	case n >= 1e6:
		return fmt.Sprintf("%.1f %s", float64(n)/1e6, pick(zh, "million", "百万"))
	}
	return humanize.Comma(n)
}

func folderText(r model.DumpFolder, zh bool) string {
	switch r.Kind {
	case model.FolderUnreadable:
		return pick(zh, fmt.Sprintf("%s: skipped: %s", r.Path, r.Err), fmt.Sprintf("%s: 已跳过: %s", r.Path, r.Err))
	case model.FolderStepName:
		return pick(zh, fmt.Sprintf("%s: skipped: step folder name is not step<N>", r.Path), fmt.Sprintf("%s: 已跳过: step 文件夹名不是 step<N>", r.Path))
	case model.FolderNoDump:
		return pick(zh, fmt.Sprintf("%s: skipped: no dump.json", r.Path), fmt.Sprintf("%s: 已跳过: 无 dump.json", r.Path))
	case model.FolderCannotRead:
		return pick(zh, fmt.Sprintf("%s: skipped: cannot read the folder: %s", r.Path, r.Err), fmt.Sprintf("%s: 已跳过: 无法读取该文件夹: %s", r.Path, r.Err))
	case model.FolderStepAsRank:
		return pick(zh, fmt.Sprintf("%s: skipped: a step folder where a rank folder should be", r.Path), fmt.Sprintf("%s: 已跳过: 应为 rank 文件夹的位置是 step 文件夹", r.Path))
	case model.FolderStepRank0:
		return pick(zh, fmt.Sprintf("%s: a step folder where a rank folder should be: read as rank 0", r.Path), fmt.Sprintf("%s: 应为 rank 文件夹的位置是 step 文件夹: 按 rank 0 读取", r.Path))
	case model.FolderBothModes:
		return pick(zh, fmt.Sprintf("%s: both graph and pynative dumps present: each dump keeps its Mode", r.Path), fmt.Sprintf("%s: 同时有 graph 与 pynative 的 dump: 各 dump 保留其模式", r.Path))
	}
	return pick(zh, r.Path+": skipped", r.Path+": 已跳过")
}

func init() {
	register(func(r model.TrendImmutable, zh bool) string {
		var why string
		switch r.Why {
		case model.ImmutableNotWritable:
			why = pick(zh, "its folder is not writable and it has no journal or write-ahead log", "其文件夹不可写，且没有 journal 或 WAL")
		case model.ImmutableWALNoWriter:
			why = pick(zh, "it is in WAL mode with no -wal or -shm file: no writer is connected", "它处于 WAL 模式且没有 -wal 或 -shm 文件: 没有写入进程连接")
		case model.ImmutableForeignWAL:
			switch r.Foreign {
			case model.ForeignRollback:
				why = pick(zh, fmt.Sprintf("%s holds committed pages of another file: this database is in rollback-journal mode, which never has a write-ahead log of its own (a file renamed over the one the log was written for)", r.WAL),
					fmt.Sprintf("%s 含有另一个文件已提交的页: 本数据库为 rollback-journal 模式，从不会有自己的 WAL（有文件被重命名覆盖了该日志所属的文件）", r.WAL))
			case model.ForeignPageSize:
				why = pick(zh, fmt.Sprintf("%s holds committed pages of another file: its page size is %d, the database's %d", r.WAL, r.WALPage, r.DBPage),
					fmt.Sprintf("%s 含有另一个文件已提交的页: 其页大小为 %d，数据库的为 %d", r.WAL, r.WALPage, r.DBPage))
			default:
				why = pick(zh, fmt.Sprintf("%s holds committed pages of another file: it was beside the file read before at this path, which has since been replaced", r.WAL),
					fmt.Sprintf("%s 含有另一个文件已提交的页: 它位于此路径之前读取的文件旁，而该文件已被替换", r.WAL))
			}
			why += pick(zh, "; SQLite would replay them over this file, so it was read without the log", "；SQLite 会把这些页回放到本文件上，因此读取时未使用该日志")
		default:
			why = pick(zh, fmt.Sprintf("a read-only open failed (%s) and it has no journal or write-ahead log", r.Message),
				fmt.Sprintf("只读打开失败（%s），且没有 journal 或 WAL", r.Message))
		}
		return pick(zh, "opened immutable, without SQLite's locking: ", "以 immutable 方式打开（不加 SQLite 锁）: ") + why
	})
	register(func(r model.TrendWriteTransaction, zh bool) string {
		return pick(zh, fmt.Sprintf("another process holds a write transaction on it (%s exists): the last committed state was read", r.Journal),
			fmt.Sprintf("另一进程正持有其写事务（存在 %s）: 读取的是最后一次提交的状态", r.Journal))
	})
	register(func(r model.TrendWAL, zh bool) string {
		return pick(zh, fmt.Sprintf("it has a write-ahead log (%s): its committed transactions were read, uncommitted ones were not", r.WAL),
			fmt.Sprintf("数据库带有 WAL（%s）: 已读取已提交的事务，未读取未提交的事务", r.WAL))
	})
	register(func(r model.TrendAppeared, zh bool) string {
		return pick(zh, fmt.Sprintf("%s appeared while the database was read: another process started writing it; %s", r.File, asOf(r.AsOf, zh)),
			fmt.Sprintf("读取数据库期间出现了 %s: 另一进程开始写入；%s", r.File, asOf(r.AsOf, zh)))
	})
	register(func(r model.TrendCommitted, zh bool) string {
		return pick(zh, "another process committed to the database while it was read: ", "读取期间另一进程向数据库提交了数据: ") + asOf(r.AsOf, zh)
	})
	register(func(_ model.TrendNoRows, zh bool) string {
		return pick(zh, "the database holds no data rows", "数据库中没有数据行")
	})
	register(func(r model.TrendFromDump, zh bool) string {
		return pick(zh, "this trend.db was built from dump statistics (metrics "+strings.Join(r.Metrics, ", ")+"): monitoring_targets.micro_step is the call index and stays part of the target; parameters_grad rows may be missing (data2db drops them)",
			"该 trend.db 由 dump 统计量生成（指标 "+strings.Join(r.Metrics, ", ")+"）: monitoring_targets.micro_step 是调用序号，保留为目标的一部分；parameters_grad 行可能缺失（data2db 会丢弃）")
	})
	register(func(r model.TrendMetricAbsent, zh bool) string {
		return pick(zh, fmt.Sprintf("table %s: metric_id %d is absent from monitoring_metrics", r.Table, r.Metric),
			fmt.Sprintf("表 %s: metric_id %d 不在 monitoring_metrics 中", r.Table, r.Metric))
	})
	register(func(_ model.TrendGenA, zh bool) string {
		return pick(zh, "older Gen A monitor_metrics.db (MSTT csv2db): step is the optimizer step; micro steps come from monitoring_targets.micro_step",
			"旧版 Gen A monitor_metrics.db（MSTT csv2db）: step 即 optimizer step；micro step 取自 monitoring_targets.micro_step")
	})
	register(func(r model.TrendUnknownIDs, zh bool) string {
		what, table := "target_id", "monitoring_targets"
		if r.Metric {
			what, table = "metric_id", "monitoring_metrics"
		}
		return pick(zh, fmt.Sprintf("%d rows refer to %s(s) %s absent from %s (kept, named \"%s N\")", r.Rows, what, ids(r.IDs, r.More), table, what),
			fmt.Sprintf("%d 行引用的 %s %s 不在 %s 中（已保留，命名为 \"%s N\"）", r.Rows, what, ids(r.IDs, r.More), table, what))
	})
	register(func(r model.TrendBadKeyRows, zh bool) string {
		return pick(zh, fmt.Sprintf("%d trend_data row(s) skipped: a key column (rank, step, target_id, metric_id) is not a usable integer; the first: %s", r.Rows, r.Problem),
			fmt.Sprintf("跳过 %d 行 trend_data: 键列（rank, step, target_id, metric_id）不是可用的整数；第一处: %s", r.Rows, r.Problem))
	})
	register(func(r model.TrendBadCells, zh bool) string {
		var ex []string
		for _, at := range r.At {
			ex = append(ex, fmt.Sprintf("rank %d step %d (%s)", at.Rank, at.Step, at.Target))
		}
		if r.More {
			ex = append(ex, "…")
		}
		norm := r.Stat == model.StatNames[model.StatNorm]
		if zh {
			what := "按缺失值（NaN）读取"
			if norm {
				what = "这些行已剔除，未按非有限梯度读取"
			}
			return fmt.Sprintf("数据问题: trend_data.%s 中 %d 个单元格不是数值（文本或二进制数据）: %s；%s", r.Stat, r.Cells, strings.Join(ex, ", "), what)
		}
		what := "read as missing (NaN)"
		if norm {
			what = "their rows were left out, not read as non-finite gradients"
		}
		cells, verb := "cells", "are not numbers"
		if r.Cells == 1 {
			cells, verb = "cell", "is not a number"
		}
		return fmt.Sprintf("data problem: %d %s in trend_data.%s %s (text or binary data): %s; %s", r.Cells, cells, r.Stat, verb, strings.Join(ex, ", "), what)
	})
	register(func(r model.TrendTextNumbers, zh bool) string {
		return pick(zh, fmt.Sprintf("%d statistic cell(s) held numbers written as text: read as those numbers", r.Cells),
			fmt.Sprintf("%d 个统计量单元格以文本形式存放数值: 已按数值读取", r.Cells))
	})
	register(func(r model.TrendDuplicateRows, zh bool) string {
		first := fmt.Sprintf("rank %d step %d %s (%s)", r.Rank, r.Step, r.Target, r.Metric)
		return pick(zh, fmt.Sprintf("data problem: %d trend_data row(s) repeat the rank, step, parameter and metric of an earlier row (the table has no primary key); the first of each was kept, the repeats left out; the first repeat: %s", r.Rows, first),
			fmt.Sprintf("数据问题: %d 行 trend_data 与之前某行的 rank、step、参数和指标相同（该表无主键）；各保留第一行，重复行已剔除；第一处重复: %s", r.Rows, first))
	})
	register(func(r model.TrendSeveralDBs, zh bool) string {
		return pick(zh, "several databases in "+r.Dir+"; read "+r.Read+" (others: "+strings.Join(r.Others, ", ")+")",
			r.Dir+" 中有多个数据库；读取了 "+r.Read+"（其余: "+strings.Join(r.Others, ", ")+"）")
	})
	register(func(r model.NamesEscaped, zh bool) string {
		if zh {
			what := "参数"
			if r.Operators {
				what = "算子"
			}
			return fmt.Sprintf("数据问题: %d 个%s名含控制字符，已转义显示（第一个: %s）", r.Count, what, r.First)
		}
		what := "parameter"
		if r.Operators {
			what = "operator"
		}
		return fmt.Sprintf("data problem: %d %s name(s) hold control characters, shown escaped (the first: %s)", r.Count, what, r.First)
	})
	register(func(r model.StatNoNorm, zh bool) string {
		return pick(zh, fmt.Sprintf("no norm statistic recorded (only %s): spike detection compares gradient norms and has none", strings.Join(r.Have, ", ")),
			fmt.Sprintf("未记录 norm 统计量（只有 %s）: 尖刺检测比较梯度 norm，因此无从比较", strings.Join(r.Have, ", ")))
	})
	register(func(r model.StatAllMissing, zh bool) string {
		if zh {
			s := fmt.Sprintf("全部 %d 行的 %s 均缺失（NULL、NaN 或空）", r.Rows, r.Stat)
			if r.Norm {
				s += ": 尖刺检测比较梯度 norm，因此无从比较"
			}
			return s
		}
		s := fmt.Sprintf("%s is missing (NULL, NaN or empty) in all %d rows", r.Stat, r.Rows)
		if r.Norm {
			s += ": spike detection compares gradient norms and has none"
		}
		return s
	})
	register(func(r model.GradsNone, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: no parameters_grad entries in the dumps (level L0 or mix with a backward pass records them)", r.Path),
			fmt.Sprintf("%s: dump 中没有 parameters_grad 记录（level L0 或 mix 且有反向时才记录）", r.Path))
	})
	register(func(r model.GradsCallCounts, zh bool) string {
		return pick(zh, fmt.Sprintf("parameters_grad call counts differ within a step (%s: %d, %s: %d): micro steps not derived, only each step's last call is kept", r.A, r.CountA, r.B, r.CountB),
			fmt.Sprintf("同一 step 内 parameters_grad 的调用次数不同（%s: %d, %s: %d）: 不推导 micro step，每个 step 只保留最后一次调用", r.A, r.CountA, r.B, r.CountB))
	})
	register(func(r model.GradsCallCounters, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: parameters_grad call counters differ between modules of rank %d step %d (%v, %v): micro steps are reported as call order 0..%d", r.Path, r.Rank, r.Step, r.Prev, r.Next, len(r.Next)-1),
			fmt.Sprintf("%s: rank %d step %d 各模块的 parameters_grad 调用计数不同（%v, %v）: micro step 按调用顺序 0..%d 给出", r.Path, r.Rank, r.Step, r.Prev, r.Next, len(r.Next)-1))
	})
	register(func(r model.DumpEmpty, zh bool) string {
		switch r.Kind {
		case model.DumpEmptyBraces:
			return pick(zh, fmt.Sprintf("%s: dump.json is {} (no \"data\"): 0 ops", r.Path), fmt.Sprintf("%s: dump.json 为 {}（无 \"data\"）: 0 个算子", r.Path))
		case model.DumpNoData:
			return pick(zh, fmt.Sprintf("%s: no \"data\" object: 0 ops", r.Path), fmt.Sprintf("%s: 无 \"data\" 对象: 0 个算子", r.Path))
		}
		return pick(zh, fmt.Sprintf("%s: \"data\" is empty: 0 ops", r.Path), fmt.Sprintf("%s: \"data\" 为空: 0 个算子", r.Path))
	})
	register(func(r model.DumpTaskNoStats, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: task %q records no Max/Min/Mean/Norm statistics", r.Path, r.Task),
			fmt.Sprintf("%s: task %q 不记录 Max/Min/Mean/Norm 统计量", r.Path, r.Task))
	})
	register(func(r model.DumpNoStats, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: none of its %d tensor records has Max/Min/Mean/Norm (summary_mode md5/xor, or task %q?)", r.Path, r.Tensors, r.Task),
			fmt.Sprintf("%s: %d 条 tensor 记录都没有 Max/Min/Mean/Norm（summary_mode 为 md5/xor，或 task 为 %q？）", r.Path, r.Tensors, r.Task))
	})
	register(func(r model.DumpBadKeys, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: %d data keys do not follow msprobe's key grammar (kept as forward API ops): %s", r.Path, r.Count, strings.Join(r.Keys, ", ")),
			fmt.Sprintf("%s: %d 个 data 键不符合 msprobe 的键格式（按前向 API 算子保留）: %s", r.Path, r.Count, strings.Join(r.Keys, ", ")))
	})
	register(func(r model.DumpDuplicateKeys, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: %d duplicate data keys (first %q); the first of each is indexed", r.Path, r.Count, r.First),
			fmt.Sprintf("%s: %d 个重复的 data 键（第一个 %q）；各取第一个建立索引", r.Path, r.Count, r.First))
	})
	register(func(r model.DumpNotObjects, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: %d data entries are not objects (first %q); kept without tensors", r.Path, r.Count, r.First),
			fmt.Sprintf("%s: %d 个 data 条目不是对象（第一个 %q）；保留但不含 tensor", r.Path, r.Count, r.First))
	})
	register(func(r model.DumpSideIgnored, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: ignored: %s", r.Path, r.Err), fmt.Sprintf("%s: 已忽略: %s", r.Path, r.Err))
	})
	register(func(r model.DumpSkipped, zh bool) string {
		return pick(zh, "skipped: "+r.Err, "已跳过: "+r.Err)
	})
	register(func(r model.DumpSameStepRank, zh bool) string {
		return pick(zh, fmt.Sprintf("%s and %s are both step %d rank %d; the first is used", r.A, r.B, r.Step, r.Rank),
			fmt.Sprintf("%s 与 %s 都是 step %d rank %d；使用前者", r.A, r.B, r.Step, r.Rank))
	})
	register(func(r model.DumpFolder, zh bool) string { return folderText(r, zh) })
	register(func(r model.MemoryNear, zh bool) string {
		if zh {
			subject := r.Path
			if r.Baseline != "" {
				subject += " 与其标杆 " + r.Baseline
			}
			limit := fmt.Sprintf("内存上限 %s（--mem-limit）", r.Limit)
			if r.Default {
				limit = fmt.Sprintf("内存上限 %s（本进程可用内存的 %.0f%%）", r.Limit, r.Percent)
			}
			return fmt.Sprintf("%s 约有 %s 行监控数据，峰值约需 %s 内存，接近%s: 运行可能耗尽内存", subject, rowsText(r.Rows, zh), r.Peak, limit)
		}
		subject := r.Path + " holds"
		if r.Baseline != "" {
			subject = r.Path + " and its baseline " + r.Baseline + " hold"
		}
		limit := fmt.Sprintf("the memory limit of %s (--mem-limit)", r.Limit)
		if r.Default {
			limit = fmt.Sprintf("the memory limit of %s (%.0f%% of the memory this process may use)", r.Limit, r.Percent)
		}
		return fmt.Sprintf("%s about %s monitor rows, which need about %s of memory at the peak, close to %s: the run may run out of memory", subject, rowsText(r.Rows, zh), r.Peak, limit)
	})
	register(func(r model.MetricNotFound, zh bool) string {
		return pick(zh, fmt.Sprintf("metric %q not found: analysed %q", r.Asked, r.Analysed), fmt.Sprintf("未找到指标 %q: 改为分析 %q", r.Asked, r.Analysed))
	})
}

func init() {
	register(func(r model.CSVSkippedFiles, zh bool) string {
		return pick(zh, fmt.Sprintf("%d of %d monitor CSV files could not be read and were skipped: their rows are missing from the analysis", r.Skipped, r.Total),
			fmt.Sprintf("%d/%d 个监控 CSV 文件无法读取，已跳过: 其数据行不在分析中", r.Skipped, r.Total))
	})
	register(func(r model.CSVSkippedFile, zh bool) string {
		return pick(zh, "skipped "+r.Err, "已跳过 "+r.Err)
	})
	register(func(r model.CSVMoreSkipped, zh bool) string {
		return pick(zh, fmt.Sprintf("… and %d more skipped file(s)", r.Count), fmt.Sprintf("… 另有 %d 个文件被跳过", r.Count))
	})
	register(func(r model.CSVNoRows, zh bool) string {
		return pick(zh, fmt.Sprintf("the %d monitor CSV file(s) hold no data rows", r.Files), fmt.Sprintf("%d 个监控 CSV 文件中没有数据行", r.Files))
	})
	register(func(r model.CSVRuns, zh bool) string {
		list := strings.Join(r.Folders, ", ")
		if zh {
			switch {
			case !r.Ordered:
				return fmt.Sprintf("rank %d 有 %d 个运行文件夹（%s）: 其时间标签无法排序，全部数据行均保留", r.Rank, len(r.Folders), list)
			case r.Dropped == 0:
				return fmt.Sprintf("rank %d 有 %d 个运行文件夹（%s）: 没有共同的 step，全部数据行均保留", r.Rank, len(r.Folders), list)
			}
			return fmt.Sprintf("rank %d 有 %d 个运行文件夹（%s）: 共同的 step（续训）按时间标签保留最新一次运行的数据，丢弃了较早运行的 %d 行", r.Rank, len(r.Folders), list, r.Dropped)
		}
		switch {
		case !r.Ordered:
			return fmt.Sprintf("rank %d has %d run folders (%s): their time tags do not order them, rows of all are kept", r.Rank, len(r.Folders), list)
		case r.Dropped == 0:
			return fmt.Sprintf("rank %d has %d run folders (%s): they share no step, rows of all are kept", r.Rank, len(r.Folders), list)
		}
		return fmt.Sprintf("rank %d has %d run folders (%s): where they share steps (a resumed run) the latest run's rows are kept by time tag, %d rows of earlier runs dropped", r.Rank, len(r.Folders), list, r.Dropped)
	})
	register(func(r model.CSVIncompleteLine, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: last line %d is incomplete (file still being written?): skipped", r.Path, r.Line),
			fmt.Sprintf("%s: 最后一行（第 %d 行）不完整（文件仍在写入？）: 已跳过", r.Path, r.Line))
	})
	register(func(r model.CSVBadLines, zh bool) string {
		more := ""
		if r.More {
			more = "; …"
		}
		return pick(zh, fmt.Sprintf("%s: %d line(s) are not data and were skipped, the file's other rows were read: %s%s", r.Path, r.Count, strings.Join(r.Problems, "; "), more),
			fmt.Sprintf("%s: %d 行不是数据，已跳过，文件其余行已读取: %s%s", r.Path, r.Count, strings.Join(r.Problems, "; "), more))
	})
	register(func(r model.CSVHeaderOnly, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: header only, no data rows: rank %d has nothing from this file", r.Path, r.Rank),
			fmt.Sprintf("%s: 只有表头，没有数据行: rank %d 从该文件得不到数据", r.Path, r.Rank))
	})
	register(func(r model.CSVUnreadable, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: skipped (%s)", r.Path, r.Err), fmt.Sprintf("%s: 已跳过（%s）", r.Path, r.Err))
	})
	register(func(r model.CSVNoRankFolder, zh bool) string {
		return pick(zh, fmt.Sprintf("%d monitor CSV file(s) lie in no rank folder (…-rank<R>-…, rank_<R>, rank<R>), e.g. %s: rank 0 assumed", r.Count, r.Example),
			fmt.Sprintf("%d 个监控 CSV 文件不在 rank 文件夹中（…-rank<R>-…, rank_<R>, rank<R>），如 %s: 按 rank 0 处理", r.Count, r.Example))
	})
	register(func(r model.CSVNotMonitor, zh bool) string {
		return pick(zh, fmt.Sprintf("%d CSV file(s) are not monitor metric files and were ignored, e.g. %s", r.Count, r.Example),
			fmt.Sprintf("%d 个 CSV 文件不是监控指标文件，已忽略，如 %s", r.Count, r.Example))
	})
	register(func(r model.CSVFileName, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: file name is not <metric>_<a>-<b>.csv; metric named %q", r.Path, r.Metric),
			fmt.Sprintf("%s: 文件名不是 <metric>_<a>-<b>.csv；指标命名为 %q", r.Path, r.Metric))
	})
	register(func(r model.CSVNotRankFolder, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: its folder is not a rank folder; rank 0 assumed", r.Path),
			fmt.Sprintf("%s: 所在文件夹不是 rank 文件夹；按 rank 0 处理", r.Path))
	})
}

func init() {
	register(func(r model.FollowListFailed, zh bool) string {
		return pick(zh, fmt.Sprintf("cannot list the monitor CSVs (%s): the rows read so far are kept", r.Err), fmt.Sprintf("无法列出监控 CSV（%s）: 保留已读取的数据行", r.Err))
	})
	register(func(r model.FollowNewRunFolder, zh bool) string {
		return pick(zh, fmt.Sprintf("%s: a rank now has several run folders (a restarted job?): the whole tree is read again", r.Path),
			fmt.Sprintf("%s: 某 rank 现在有多个运行文件夹（任务重启？）: 重新读取整个目录", r.Path))
	})
	register(func(r model.FollowCut, zh bool) string {
		if zh {
			what := "变短了"
			if r.Replaced {
				what = "被替换"
			}
			return fmt.Sprintf("%s %s（之前读到 %d 字节，现在 %d）: 重新读取整个目录", r.Path, what, r.Before, r.Now)
		}
		what := "shrank"
		if r.Replaced {
			what = "was replaced"
		}
		return fmt.Sprintf("%s %s (%d bytes read before, %d now): the whole tree is read again", r.Path, what, r.Before, r.Now)
	})
	register(func(r model.FollowWrittenAnew, zh bool) string {
		return pick(zh, fmt.Sprintf("%s was written anew (its line %d no longer ends where it did, or holds other bytes): the whole tree is read again", r.Path, r.Line),
			fmt.Sprintf("%s 被重新写入（第 %d 行的结尾位置或内容已变）: 重新读取整个目录", r.Path, r.Line))
	})
	register(func(r model.FollowSkippedNew, zh bool) string {
		return pick(zh, "skipped new lines of "+r.Err, "已跳过新行: "+r.Err)
	})
	register(func(r model.FollowRereadFailed, zh bool) string {
		return pick(zh, fmt.Sprintf("reading the tree again failed (%s): the rows read before are kept", r.Err), fmt.Sprintf("重新读取目录失败（%s）: 保留之前读取的数据行", r.Err))
	})
	register(func(r model.FollowDBUnreadable, zh bool) string {
		return pick(zh, fmt.Sprintf("the database changed but cannot be read yet (%s): the rows read before are kept", r.Err), fmt.Sprintf("数据库已变化但暂时无法读取（%s）: 保留之前读取的数据行", r.Err))
	})
	register(func(r model.FollowNowReading, zh bool) string {
		return pick(zh, fmt.Sprintf("now reading %s (was %s)", r.File, r.Was), fmt.Sprintf("现在读取 %s（之前为 %s）", r.File, r.Was))
	})
}

func init() {
	register(func(r model.RankMissingSteps, zh bool) string {
		return pick(zh, fmt.Sprintf("rank %d has %d of %d steps (missing %s)", r.Rank, r.Have, r.Total, r.Missing),
			fmt.Sprintf("rank %d 只有 %d/%d 个 step（缺少 %s）", r.Rank, r.Have, r.Total, r.Missing))
	})
	register(func(r model.MoreRanksMissingSteps, zh bool) string {
		return pick(zh, fmt.Sprintf("… and %d more rank(s) missing steps", r.Count), fmt.Sprintf("… 另有 %d 个 rank 缺少 step", r.Count))
	})
}
