package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
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
	check    func(tree []*session.Log) bool
}

// CategoryRules lists the built-in categories' rules. A category not
// listed (billing/, say) gets the common checks only.
var CategoryRules = []CategoryRule{
	{"spawn", "at least one child, and every child a spawn child", func(t []*session.Log) bool {
		kids := children(t)
		return len(kids) > 0 && !slices.ContainsFunc(kids, isFork)
	}},
	{"fork", "at least one fork child (a fork on the parent's first turn, which inherits nothing, counts)", func(t []*session.Log) bool {
		return slices.ContainsFunc(children(t), isFork)
	}},
	{"mixed", "at least one spawn child and one fork child", func(t []*session.Log) bool {
		kids := children(t)
		return slices.ContainsFunc(kids, isFork) && slices.ContainsFunc(kids, isSpawn)
	}},
	{"parallel", "at least one step that delegates to two or more children at once", func(t []*session.Log) bool {
		return concurrentSiblings(t)
	}},
	{"errors", "at least one model call that failed or was aborted (from the playbook, a live failure or replay.override.json)", func(t []*session.Log) bool {
		return slices.ContainsFunc(t, failedCall)
	}},
}

// CheckCategory returns what fx's recording lacks for its category, and
// any fork child whose seed does not end right after a turn/end; nil when
// there is nothing to say.
func CheckCategory(fx *fixture.Fixture) []string {
	var out []string
	for _, l := range fx.Logs {
		if err := seedBoundary(l); err != nil {
			out = append(out, err.Error())
		}
	}
	cat := fx.Category()
	for _, r := range CategoryRules {
		if r.Category == cat && !r.check(fx.Logs) {
			out = append(out, fmt.Sprintf("a %s/ scenario needs %s, and this recording has not (%s); record another path, or move the scenario to the category it fits", cat, r.Requires, treeSummary(fx.Logs)))
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

func children(tree []*session.Log) []*session.Log {
	var out []*session.Log
	for _, l := range tree {
		if l.Header.IsChild() {
			out = append(out, l)
		}
	}
	return out
}

func isFork(l *session.Log) bool  { return l.Header.Mode == session.ModeFork || l.Header.SeedLength > 0 }
func isSpawn(l *session.Log) bool { return l.Header.Mode == session.ModeSpawn }

// concurrentSiblings reports whether one step of some session created two
// or more children: the calls the runtime may run at once.
func concurrentSiblings(tree []*session.Log) bool {
	for _, l := range tree {
		perStep := map[[2]int]int{}
		kids := map[string]bool{}
		for _, c := range tree {
			if c.Header.ParentSession == l.Header.ID && c.Header.ParentCallID != "" {
				kids[c.Header.ParentCallID] = true
			}
		}
		for _, e := range l.Own() {
			if e.Type != session.TypeToolCall {
				continue
			}
			var d session.ToolCallData
			if e.Decode(&d) == nil && kids[d.CallID] {
				perStep[[2]int{d.Turn, d.Step}]++
				if perStep[[2]int{d.Turn, d.Step}] >= 2 {
					return true
				}
			}
		}
	}
	return false
}

// failedCall reports whether a session's own events hold a model call that
// ended with an error or an aborted finish, or a turn that ended so.
func failedCall(l *session.Log) bool {
	for _, e := range l.Own() {
		switch e.Type {
		case session.TypeAssistantChunk:
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
func treeSummary(tree []*session.Log) string {
	var spawn, fork int
	for _, c := range children(tree) {
		if isFork(c) {
			fork++
		} else {
			spawn++
		}
	}
	parts := []string{fmt.Sprintf("%d %s", len(tree), plural(len(tree), "session"))}
	if spawn > 0 {
		parts = append(parts, fmt.Sprintf("%d spawn", spawn))
	}
	if fork > 0 {
		parts = append(parts, fmt.Sprintf("%d fork", fork))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
