package model

import "time"

// What `detect --follow` says on its lines (pipeline/follow.go), as the
// values the follower saw. Package words says them (words/follow.go).

// FollowStarted: the first read of Path is done (Rows rows, Candidates
// candidates); the follower polls every Interval until interrupted.
type FollowStarted struct {
	Path             string
	Rows, Candidates int
	Interval         time.Duration
}

func (FollowStarted) Rule() string { return "follow.started" }

// FollowStopped: the follow of Path ended after Polls polls, with Rows
// rows and Candidates candidates read.
type FollowStopped struct {
	Path                    string
	Polls, Rows, Candidates int
}

func (FollowStopped) Rule() string { return "follow.stopped" }

// FollowStoppedEarly: the follow of Path was interrupted during its first
// read.
type FollowStoppedEarly struct{ Path string }

func (FollowStoppedEarly) Rule() string { return "follow.stopped_early" }

// Why a reported candidate was revised (FollowRevised.Why).
const (
	RevisedRestored  = "restored"  // a candidate again
	RevisedFlagged   = "flagged"   // flagged for another reason (Now, Was)
	RevisedNamed     = "named"     // renamed (Name): the ranks read since show the stages
	RevisedStage     = "stage"     // placed on pipeline stage Stage
	RevisedWithdrawn = "withdrawn" // the baseline of later steps does not flag it
	RevisedReread    = "reread"    // not a candidate in the data as read again
)

// FollowFlag is what flagged a candidate: its trigger, its test and
// whether the value is non-finite.
type FollowFlag struct {
	Trigger, Test string
	NonFinite     bool
}

// FollowRevised: the candidate reported at Step, Rank, Target changed for
// Why (a Revised* kind); Now and Was with RevisedFlagged, Name with
// RevisedNamed, Stage with RevisedStage.
type FollowRevised struct {
	Step, Rank int
	Target     string
	Why        string
	Now, Was   FollowFlag
	Name       string
	Stage      int
}

func (FollowRevised) Rule() string { return "follow.revised" }

// FollowRoot: the root-cause coordinate is now Now (nil: none any more,
// every candidate withdrawn); Was is the one before (nil at the first).
type FollowRoot struct{ Now, Was *Coordinate }

func (FollowRoot) Rule() string { return "follow.root" }
