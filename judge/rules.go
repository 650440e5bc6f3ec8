package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/session"
)

// CategoryRule is what a fixture category requires of its scenarios, on top
// of the checks every scenario gets (replay matches recording, transcript
// matches golden, every fork seed ends right after a turn/end). The rules
// are checked on the recorded logs, by the suites and by agentsnap check
// alike (Outcome.RuleViolations), so both give one verdict.
type CategoryRule struct {
	Category string
	Requires string // the rule in a sentence, for docs and messages
	check    func(tree []recorded) bool
}

// CategoryRules lists the built-in categories' rules. A category not
// listed (billing/, say) gets the common checks only.
var CategoryRules = []CategoryRule{
	{"spawn", "at least one child, and every child a spawn child", func(t []recorded) bool {
		kids := children(t)
		return len(kids) > 0 && !slices.ContainsFunc(kids, isFork)
	}},
	{"fork", "at least one fork child (a fork on the parent's first turn, which inherits nothing, counts)", func(t []recorded) bool {
		return slices.ContainsFunc(children(t), isFork)
	}},
	{"mixed", "at least one spawn child and one fork child", func(t []recorded) bool {
		kids := children(t)
		return slices.ContainsFunc(kids, isFork) && slices.ContainsFunc(kids, isSpawn)
	}},
	{"parallel", "at least one step that delegates to two or more children at once", func(t []recorded) bool {
		return concurrentSiblings(t)
	}},
	{"errors", "at least one model call that failed or was aborted (from the playbook, a live failure or replay.override.json)", func(t []recorded) bool {
		return slices.ContainsFunc(t, func(r recorded) bool { return r.failed })
	}},
}

// recorded is what the category rules read of one recorded log: enough to
// apply them alike to a fixture's logs in memory and to logs read one at a
// time and let go (the verdict of a fixture opened without its logs).
type recorded struct {
	header  session.Header
	seedErr error      // seedBoundary's
	failed  bool       // failedCall's, read for errors/ only
	calls   []stepCall // its own tool calls, read for parallel/ only
}

// stepCall is a tool call of a session's own events: its id and step.
type stepCall struct {
	id         string
	turn, step int
}

// recordedOf reads of l what the rules of category cat ask.
func recordedOf(l *session.Log, cat string) recorded {
	r := recorded{header: l.Header, seedErr: seedBoundary(l)}
	switch cat {
	case "errors":
		r.failed = failedCall(l)
	case "parallel":
		r.calls = ownCalls(l)
	}
	return r
}

// CheckCategory returns what fx's recording lacks for its category, and
// any fork child whose seed does not end right after a turn/end; nil when
// there is nothing to say.
func CheckCategory(fx *fixture.Fixture) []string {
	cat := fx.Category()
	tree := make([]recorded, len(fx.Logs))
	for i, l := range fx.Logs {
		tree[i] = recordedOf(l, cat)
	}
	return checkCategory(tree, cat)
}

// checkCategory is CheckCategory of a recording's logs as read
// (recordedOf), in file order.
func checkCategory(tree []recorded, cat string) []string {
	var out []string
	for _, r := range tree {
		if r.seedErr != nil {
			out = append(out, r.seedErr.Error())
		}
	}
	for _, r := range CategoryRules {
		if r.Category == cat && !r.check(tree) {
			out = append(out, fmt.Sprintf("a scenario in %s/ needs %s, and this recording has not (%s); record another path, or move the scenario to the category it fits", cat, r.Requires, treeSummary(tree)))
		}
	}
	return out
}

// seedBoundary checks that a fork child's inherited prefix ends with a
// turn/end: it is its parent's balanced completed-turn prefix.
func seedBoundary(l *session.Log) error {
	n := l.Header.SeedLength
	if n <= 0 || n > len(l.Events) || l.Events[n-1].Type == session.TypeTurnEnd {
		return nil
	}
	return fmt.Errorf("%s: seedLength %d ends the inherited prefix at seq %d (%s), not right after a turn/end: the seed boundary must fall between turns; the runtime must stamp seedLength at the end of the parent's last completed turn", logName(l), n, n-1, l.Events[n-1].Type)
}

func logName(l *session.Log) string {
	if l.Path != "" {
		return l.Path
	}
	return "session " + l.Header.ID
}

func children(tree []recorded) []recorded {
	var out []recorded
	for _, r := range tree {
		if r.header.IsChild() {
			out = append(out, r)
		}
	}
	return out
}

func isFork(r recorded) bool  { return r.header.Mode == session.ModeFork || r.header.SeedLength > 0 }
func isSpawn(r recorded) bool { return r.header.Mode == session.ModeSpawn }

// concurrentSiblings reports whether one step of some session created two
// or more children: the calls the runtime may run at once.
func concurrentSiblings(tree []recorded) bool {
	for _, l := range tree {
		perStep := map[[2]int]int{}
		kids := map[string]bool{}
		for _, c := range tree {
			if c.header.ParentSession == l.header.ID && c.header.ParentCallID != "" {
				kids[c.header.ParentCallID] = true
			}
		}
		for _, c := range l.calls {
			if kids[c.id] {
				perStep[[2]int{c.turn, c.step}]++
				if perStep[[2]int{c.turn, c.step}] >= 2 {
					return true
				}
			}
		}
	}
	return false
}

// ownCalls returns the tool calls of l's own events.
func ownCalls(l *session.Log) []stepCall {
	var out []stepCall
	for _, e := range l.Own() {
		if e.Type != session.TypeToolCall {
			continue
		}
		var d session.ToolCallData
		if e.Decode(&d) == nil {
			out = append(out, stepCall{d.CallID, d.Turn, d.Step})
		}
	}
	return out
}

// failedCall reports whether a session's own events hold a model call that
// ended with an error or an aborted finish, or a turn that ended so.
func failedCall(l *session.Log) bool {
	for _, e := range l.Own() {
		switch e.Type {
		case session.TypeAssistantChunk:
			if !session.MayFinish(e.Data) {
				continue // a delta: decoding it would make its text
			}
			d, err := session.DecodeChunkData(e.Data)
			if err == nil && d.Chunk.IsFinish() && d.Chunk.Reason != nil &&
				(d.Chunk.Reason.Kind == session.FinishError || d.Chunk.Reason.Kind == session.FinishAborted) {
				return true
			}
		case session.TypeTurnEnd:
			var d session.TurnEndData
			if e.Decode(&d) == nil && (d.Reason.Kind == session.TurnError || d.Reason.Kind == session.TurnAborted) {
				return true
			}
		}
	}
	return false
}

// treeSummary describes a recorded tree in a few words.
func treeSummary(tree []recorded) string {
	var spawn, fork int
	for _, c := range children(tree) {
		if isFork(c) {
			fork++
		} else {
			spawn++
		}
	}
	parts := []string{fmt.Sprintf("%d %s", len(tree), english.Plural(len(tree), "session"))}
	if spawn > 0 {
		parts = append(parts, fmt.Sprintf("%d spawn", spawn))
	}
	if fork > 0 {
		parts = append(parts, fmt.Sprintf("%d fork", fork))
	}
	return strings.Join(parts, ", ")
}
