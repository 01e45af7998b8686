package words

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"spikescope/model"
)

// detect --follow's lines: the English as the follower wrote it before its
// messages were reasons (the JSON lines' contract), the Chinese with the
// same numbers and names and no English sentence.
func TestFollowSentences(t *testing.T) {
	five, two := 5, 2
	root := &model.Coordinate{OptimizerStep: &five, MicroStep: &two, Rank: 3, TargetName: "layers.2.mlp.linear_fc2.weight"}
	old := &model.Coordinate{Step: &two, Rank: 1, TargetName: "embedding.weight"}
	flag := model.FollowFlag{Trigger: "micro_step_delta", Test: "iqr+mad"}
	at := model.FollowRevised{Step: 22, Rank: 3, Target: "layers.2.mlp.linear_fc2.weight"}
	with := func(r model.FollowRevised) model.FollowRevised {
		r.Step, r.Rank, r.Target = at.Step, at.Rank, at.Target
		return r
	}
	for r, en := range map[model.Reason]string{
		model.FollowStarted{Path: "run/trend.db", Rows: 1, Candidates: 12, Interval: 2 * time.Second}:                           "following run/trend.db: 1 row read, 12 candidates; polling every 2s until interrupted",
		model.FollowStopped{Path: "run/trend.db", Polls: 3, Rows: 4096, Candidates: 1}:                                          "stopped following run/trend.db after 3 polls: 4096 rows, 1 candidate",
		model.FollowStoppedEarly{Path: "run/trend.db"}:                                                                          "stopped following run/trend.db before its first read was done",
		with(model.FollowRevised{Why: model.RevisedRestored}):                                                                   "the candidate at step 22 rank 3 layers.2.mlp.linear_fc2.weight is a candidate again with the data read since",
		with(model.FollowRevised{Why: model.RevisedFlagged, Now: model.FollowFlag{Trigger: "iqr", NonFinite: true}, Was: flag}): "the candidate at step 22 rank 3 layers.2.mlp.linear_fc2.weight is now flagged by iqr, non-finite (was micro_step_delta (iqr+mad)) with the data read since",
		with(model.FollowRevised{Why: model.RevisedNamed, Name: "pp1:layers.2.mlp.linear_fc2.weight"}):                          "the candidate at step 22 rank 3 layers.2.mlp.linear_fc2.weight is now named pp1:layers.2.mlp.linear_fc2.weight: the ranks read since show the pipeline stages",
		with(model.FollowRevised{Why: model.RevisedStage, Stage: 1}):                                                            "the candidate at step 22 rank 3 layers.2.mlp.linear_fc2.weight is on pipeline stage 1: the ranks read since show the pipeline stages",
		with(model.FollowRevised{Why: model.RevisedWithdrawn}):                                                                  "the candidate at step 22 rank 3 layers.2.mlp.linear_fc2.weight is no longer a candidate: the baseline of later steps does not flag it",
		with(model.FollowRevised{Why: model.RevisedReread}):                                                                     "the candidate at step 22 rank 3 layers.2.mlp.linear_fc2.weight is no longer a candidate in the data as read again",
		model.FollowRoot{Now: root}:           "the root-cause coordinate is now optimizer step 5 micro step 2 rank 3 layers.2.mlp.linear_fc2.weight",
		model.FollowRoot{Now: root, Was: old}: "the root-cause coordinate is now optimizer step 5 micro step 2 rank 3 layers.2.mlp.linear_fc2.weight (was step 2 rank 1 embedding.weight)",
		model.FollowRoot{Was: root}:           "there is no root-cause coordinate any more (was optimizer step 5 micro step 2 rank 3 layers.2.mlp.linear_fc2.weight): no candidate is left with the data read since",
	} {
		if got := Say(r, English); got != en {
			t.Errorf("%T en:\n got %q\nwant %q", r, got, en)
		}
		zh := Say(r, Chinese)
		if !hasHan(zh) || EnglishSentence(zh) != "" {
			t.Errorf("%T zh %q: not Chinese (%q)", r, zh, EnglishSentence(zh))
		}
		// every number, name and path of the English is in the Chinese
		for _, w := range regexp.MustCompile(`[\w./:+-]*\d[\w./:+-]*|[\w-]+\.[\w.]+|micro_step_delta|iqr\+mad`).FindAllString(en, -1) {
			if !strings.Contains(zh, w) {
				t.Errorf("%T: %q of the English is not in the Chinese %q", r, w, zh)
			}
		}
	}
}
