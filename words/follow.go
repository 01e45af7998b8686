package words

import (
	"fmt"

	"spikescope/model"
)

// What detect --follow says on its lines (model/reasons_follow.go).

func init() {
	register(func(r model.FollowStarted, zh bool) string {
		return pick(zh, fmt.Sprintf("following %s: %s read, %s; polling every %s until interrupted", r.Path, nounCount(r.Rows, "row"), nounCount(r.Candidates, "candidate"), r.Interval),
			fmt.Sprintf("正在跟踪 %s: 已读取 %d 行, %d 个候选; 每 %s 轮询一次, 直到被中断", r.Path, r.Rows, r.Candidates, r.Interval))
	})
	register(func(r model.FollowStopped, zh bool) string {
		return pick(zh, fmt.Sprintf("stopped following %s after %s: %s, %s", r.Path, nounCount(r.Polls, "poll"), nounCount(r.Rows, "row"), nounCount(r.Candidates, "candidate")),
			fmt.Sprintf("已停止跟踪 %s: 共轮询 %d 次, %d 行, %d 个候选", r.Path, r.Polls, r.Rows, r.Candidates))
	})
	register(func(r model.FollowStoppedEarly, zh bool) string {
		return pick(zh, fmt.Sprintf("stopped following %s before its first read was done", r.Path),
			fmt.Sprintf("已停止跟踪 %s: 首次读取尚未完成", r.Path))
	})
	register(func(r model.FollowRevised, zh bool) string {
		return pick(zh, fmt.Sprintf("the candidate at step %d rank %d %s %s", r.Step, r.Rank, r.Target, revisedWhy(r, false)),
			fmt.Sprintf("step %d rank %d %s 的候选%s", r.Step, r.Rank, r.Target, revisedWhy(r, true)))
	})
	register(func(r model.FollowRoot, zh bool) string {
		switch {
		case r.Now == nil:
			return pick(zh, "there is no root-cause coordinate any more (was "+followCoord(r.Was)+"): no candidate is left with the data read since",
				"不再有根因坐标 (此前为 "+followCoord(r.Was)+"): 按此后读取的数据已无候选")
		case r.Was == nil:
			return pick(zh, "the root-cause coordinate is now "+followCoord(r.Now), "根因坐标现为 "+followCoord(r.Now))
		}
		return pick(zh, "the root-cause coordinate is now "+followCoord(r.Now)+" (was "+followCoord(r.Was)+")",
			"根因坐标现为 "+followCoord(r.Now)+" (此前为 "+followCoord(r.Was)+")")
	})
}

// revisedWhy says why a candidate was revised (after its coordinate).
func revisedWhy(r model.FollowRevised, zh bool) string {
	switch r.Why {
	case model.RevisedRestored:
		return pick(zh, "is a candidate again with the data read since", "按此后读取的数据重新成为候选")
	case model.RevisedFlagged:
		return pick(zh, fmt.Sprintf("is now flagged by %s (was %s) with the data read since", followFlag(r.Now, false), followFlag(r.Was, false)),
			fmt.Sprintf("按此后读取的数据现由 %s 标注 (此前为 %s)", followFlag(r.Now, true), followFlag(r.Was, true)))
	case model.RevisedNamed:
		return pick(zh, fmt.Sprintf("is now named %s: the ranks read since show the pipeline stages", r.Name),
			fmt.Sprintf("现名为 %s: 此后读取的 rank 显示出流水线 stage", r.Name))
	case model.RevisedStage:
		return pick(zh, fmt.Sprintf("is on pipeline stage %d: the ranks read since show the pipeline stages", r.Stage),
			fmt.Sprintf("位于流水线 stage %d: 此后读取的 rank 显示出流水线 stage", r.Stage))
	case model.RevisedReread:
		return pick(zh, "is no longer a candidate in the data as read again", "按重新读取的数据不再是候选")
	}
	return pick(zh, "is no longer a candidate: the baseline of later steps does not flag it", "不再是候选: 之后各 step 的基线不再标注它")
}

// followFlag names what flagged a candidate: "micro_step_delta (iqr+mad)".
func followFlag(f model.FollowFlag, zh bool) string {
	s := f.Trigger
	if f.Test != "" {
		s += " (" + f.Test + ")"
	}
	if f.NonFinite {
		s += pick(zh, ", non-finite", ", 非有限值")
	}
	return s
}

// followCoord names a coordinate in the method's terms, the same in both
// languages: "optimizer step 5 micro step 2 rank 3 layers.2.mlp…" ("—"
// for none).
func followCoord(c *model.Coordinate) string {
	if c == nil {
		return "—"
	}
	s := ""
	if c.OptimizerStep != nil {
		s = fmt.Sprintf("optimizer step %d", *c.OptimizerStep)
	} else if c.Step != nil {
		s = fmt.Sprintf("step %d", *c.Step)
	}
	if c.MicroStep != nil {
		s += fmt.Sprintf(" micro step %d", *c.MicroStep)
	}
	return fmt.Sprintf("%s rank %d %s", s, c.Rank, c.TargetName)
}

// nounCount is "1 row", "2 rows".
func nounCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
