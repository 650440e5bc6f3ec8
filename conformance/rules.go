package conformance

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/internal/termtext"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/session"
)

// The rules, by id. Each violation names one.
const (
	ruleRecords          = "records"
	ruleSeqDense         = "seq-dense"
	ruleHeaderRoot       = "header-root"
	ruleHeaderChild      = "header-child"
	ruleSeedStamped      = "seed-stamped"
	ruleSeedVerbatim     = "seed-verbatim"
	ruleTurnNumbering    = "turn-numbering"
	ruleTurnShape        = "turn-shape"
	ruleStepNumbering    = "step-numbering"
	ruleRequestHeader    = "request-header"
	ruleOneFinish        = "one-finish"
	ruleAssistantMessage = "assistant-message"
	ruleUsage            = "usage"
	ruleToolResults      = "tool-results-in-order"
	ruleRecordedTool     = "recorded-tool"
	ruleErrorTurn        = "error-turn"
	ruleHangTurn         = "hang-turn"
	ruleRetry            = "retry"
	ruleAttempts         = "attempt-numbering"
	ruleReplay           = "replay-matches"
	ruleGolden           = "golden-matches"
	ruleDeterministic    = "deterministic"
)

// report collects one scenario's violations. A rule broken again and again
// in one session (every event of a renumbered turn, say) is one violation
// that counts the others, so the list stays readable.
type report struct {
	scenario string
	out      []Violation
	at       map[string]int // session and rule -> index in out
	more     map[int]int    // index in out -> repeats
	secrets  *secret.Set    // shown as [REDACTED] in every problem (see Check)
}

func newReport(name string, secrets *secret.Set) *report {
	return &report{scenario: name, at: map[string]int{}, more: map[int]int{}, secrets: secrets}
}

// add reports a violation. A problem quotes what the runtime wrote and
// sent, which may hold a key of the shell the kit runs in.
func (r *report) add(rule, fix, problem string) {
	r.out = append(r.out, Violation{Scenario: r.scenario, Rule: rule, Problem: r.secrets.Redact(problem), Fix: fix})
}

// log reports a violation in the log l, once per session and rule.
func (r *report) log(l *session.Log, rule, fix, format string, args ...any) {
	r.once(l.Header.ID, rule, fix, logName(l)+": "+fmt.Sprintf(format, args...))
}

// once reports a violation of rule once per key; repeats are counted.
func (r *report) once(key, rule, fix, problem string) {
	key += "\x00" + rule
	if i, seen := r.at[key]; seen {
		r.more[i]++
		return
	}
	r.at[key] = len(r.out)
	r.add(rule, fix, problem)
}

func (r *report) violations() []Violation {
	for i, n := range r.more {
		r.out[i].Problem += fmt.Sprintf(" (and %d more like it)", n)
	}
	return r.out
}

// logName names a recorded log in a problem: its file and session id.
func logName(l *session.Log) string {
	return fmt.Sprintf("%s (%s)", filepath.Base(l.Path), l.Header.ID)
}

// Fixes of the tree rules.
const (
	fixRoot  = "create the root session with no parentSession, parentCallId, mode or origin and delegationDepth 0 (journal.NewRoot does)"
	fixSeed  = "when the fork tool runs, hand the child the parent's events up to its last turn/end (session.CompletedPrefix of the events before the fork's tool/call) and stamp seedLength with their number; a spawn child gets no seed and seedLength 0 (journal.Journal.Child does both)"
	fixRetry = `when a model call's stream ends with a finish of kind "error" and scenario.json's maxAttempts leaves an attempt, call the model again in the same step — a new request/header with attempt one more (journal.Journal.BeginCall numbers it) — and go on with the retry's answer`
	fixCopy  = "copy the parent's inherited events into the fork child's log verbatim — same type, seq and data bytes, in order — instead of rebuilding or re-encoding them (journal.Journal.Child does)"
)

// checkTree checks the recorded logs of one scenario, root first and the
// children in lineage order (fixture file order).
func checkTree(r *report, logs []*session.Log) {
	byID := map[string]*session.Log{}
	for _, l := range logs {
		byID[l.Header.ID] = l
	}
	depth := map[string]int{} // expected delegationDepth, from the lineage
	for i, l := range logs {
		if i == 0 {
			checkRoot(r, l)
			depth[l.Header.ID] = 0
		} else {
			checkChild(r, l, byID, depth)
		}
		newTurnCheck(r, l).run()
	}
}

// fixParent is the fix of a child whose parentSession names no creator.
const fixParent = "set parentSession to the id of the session whose tool call created the child (journal.Journal.Child does)"

// checkLineage names the headers that keep the sessions a recording
// created, in the order created, from forming one tree: a child without
// parentSession, or with one that names no session. The recording fails
// on them before any log can be checked.
func checkLineage(r *report, created []session.Header) {
	ids := map[string]bool{}
	for _, h := range created {
		ids[h.ID] = true
	}
	root := ""
	for i := range created {
		h := &created[i]
		switch {
		case h.ParentSession == "" && root == "":
			root = h.ID // the first session without a parent is the root
		case h.ParentSession == "":
			r.once(h.ID, ruleHeaderChild, fixParent, fmt.Sprintf("session %s has no parentSession, but it is not the root (%s was created first)%s; only the root has none, a child's parentSession is its creator's id",
				h.ID, root, childMarks(h)))
		case !ids[h.ParentSession] || h.ParentSession == h.ID:
			r.once(h.ID, ruleHeaderChild, fixParent, fmt.Sprintf("session %s: parentSession %q names no other recorded session; a child's parentSession is its creator's id", h.ID, h.ParentSession))
		}
	}
}

// childMarks lists what in a header says the session is a child.
func childMarks(h *session.Header) string {
	var marks []string
	if h.ParentCallID != "" {
		marks = append(marks, fmt.Sprintf("parentCallId %q", h.ParentCallID))
	}
	if h.Mode != "" {
		marks = append(marks, fmt.Sprintf("mode %q", h.Mode))
	}
	if h.Origin != "" {
		marks = append(marks, fmt.Sprintf("origin %q", h.Origin))
	}
	if h.DelegationDepth != 0 {
		marks = append(marks, fmt.Sprintf("delegationDepth %d", h.DelegationDepth))
	}
	if len(marks) == 0 {
		return ""
	}
	return ": its header has " + strings.Join(marks, ", ")
}

func checkRoot(r *report, l *session.Log) {
	h := &l.Header
	var wrong []string
	if h.ParentSession != "" {
		wrong = append(wrong, fmt.Sprintf("parentSession %q", h.ParentSession))
	}
	if h.ParentCallID != "" {
		wrong = append(wrong, fmt.Sprintf("parentCallId %q", h.ParentCallID))
	}
	if h.Mode != "" {
		wrong = append(wrong, fmt.Sprintf("mode %q", h.Mode))
	}
	if h.Origin != "" {
		wrong = append(wrong, fmt.Sprintf("origin %q", h.Origin))
	}
	if h.DelegationDepth != 0 {
		wrong = append(wrong, fmt.Sprintf("delegationDepth %d", h.DelegationDepth))
	}
	if h.SeedLength != 0 {
		wrong = append(wrong, fmt.Sprintf("seedLength %d", h.SeedLength))
	}
	if len(wrong) > 0 {
		r.log(l, ruleHeaderRoot, fixRoot, "the root session's header has %s; a root's header has no parentSession, parentCallId, mode, origin or seedLength, and delegationDepth 0", strings.Join(wrong, ", "))
	}
}

// creator finds the parent's tool/call that created a child: its index in
// the parent's events and its payload.
func creator(parent *session.Log, callID string) (int, *session.ToolCallData) {
	for i := len(parent.Seed()); i < len(parent.Events); i++ {
		e := &parent.Events[i]
		if e.Type != session.TypeToolCall {
			continue
		}
		var d session.ToolCallData
		if e.Decode(&d) == nil && d.CallID == callID {
			return i, &d
		}
	}
	return -1, nil
}

func checkChild(r *report, l *session.Log, byID map[string]*session.Log, depth map[string]int) {
	h := &l.Header
	parent := byID[h.ParentSession]
	if parent == nil || parent == l {
		r.log(l, ruleHeaderChild, fixParent,
			"parentSession %q names no other recorded session; a child's parentSession is its creator's id", h.ParentSession)
		return
	}
	if h.Origin != session.OriginSubagent {
		r.log(l, ruleHeaderChild, `set origin to "subagent" in every child's header (journal.Journal.Child does)`,
			"origin is %q; a child's origin is %q", h.Origin, session.OriginSubagent)
	}
	if d, ok := depth[parent.Header.ID]; ok {
		depth[h.ID] = d + 1
		if h.DelegationDepth != d+1 {
			r.log(l, ruleHeaderChild, "set delegationDepth to the parent's delegationDepth plus one (journal.Journal.Child does)",
				"delegationDepth is %d; its parent %s is at depth %d, so it must be %d", h.DelegationDepth, parent.Header.ID, d, d+1)
		}
	}
	at, call := creator(parent, h.ParentCallID)
	if call == nil {
		r.log(l, ruleHeaderChild, "set parentCallId to the id of the parent's tool/call that created the child (the id the model gave the call; llm.Request.Session.ParentCallID)",
			"parentCallId %q is no tool/call of its parent %s (its calls: %s)", h.ParentCallID, parent.Header.ID, strings.Join(callIDs(parent), ", "))
		return
	}
	want := map[string]session.Mode{"subagent_spawn": session.ModeSpawn, "subagent_fork": session.ModeFork}[call.Name]
	if want == "" {
		r.log(l, ruleHeaderChild, "set parentCallId to the id of the subagent_spawn or subagent_fork call that created the child",
			"parentCallId %q names a call of %s, which creates no session", h.ParentCallID, call.Name)
		return
	}
	if h.Mode != want {
		r.log(l, ruleHeaderChild, `set mode to "spawn" for a child of subagent_spawn and "fork" for one of subagent_fork`,
			"mode is %q, but it was created by %s (call %s at seq %d of %s), so it must be %q", h.Mode, call.Name, call.CallID, at, parent.Header.ID, want)
	}
	seed := 0
	if want == session.ModeFork {
		seed = session.CompletedPrefix(parent.Events[:at])
	}
	if h.SeedLength != seed {
		r.log(l, ruleSeedStamped, fixSeed, "seedLength is %d, but %s",
			h.SeedLength, seedExplained(parent, call, at, seed))
	}
	checkSeedCopy(r, l, parent, seed)
}

// seedExplained says what a child should have inherited, and why.
func seedExplained(parent *session.Log, call *session.ToolCallData, at, seed int) string {
	if call.Name != "subagent_fork" {
		return fmt.Sprintf("a spawn child (call %s) inherits nothing: it must be 0", call.CallID)
	}
	if seed == 0 {
		return fmt.Sprintf("its parent %s had completed no turn when it called subagent_fork (call %s at seq %d), so it inherits nothing: it must be 0", parent.Header.ID, call.CallID, at)
	}
	return fmt.Sprintf("its parent %s had completed %d turn(s) in %d events (through the turn/end at seq %d) when it called subagent_fork (call %s at seq %d): it must be %d",
		parent.Header.ID, journal.LastTurn(parent.Events[:seed]), seed, seed-1, call.CallID, at, seed)
}

// checkSeedCopy checks that the child's first n events are its parent's.
func checkSeedCopy(r *report, l, parent *session.Log, n int) {
	for i := range n {
		if i >= len(l.Events) {
			r.log(l, ruleSeedVerbatim, fixCopy, "the log holds %d events, but it must start with the %d it inherited from %s", len(l.Events), n, parent.Header.ID)
			return
		}
		got, want := &l.Events[i], &parent.Events[i]
		if got.Type != want.Type || got.Seq != want.Seq || !bytes.Equal(got.Data, want.Data) {
			r.log(l, ruleSeedVerbatim, fixCopy, "inherited event %d is %s, but its parent %s has %s there",
				i, describe(got), parent.Header.ID, describe(want))
			return
		}
	}
}

// describe shows an event briefly: seq, type and the start of its data.
func describe(e *session.Event) string {
	// Cut with the mark a secret's redaction knows, on a rune boundary.
	return fmt.Sprintf("seq %d %s %s", e.Seq, e.Type, termtext.Cut(string(e.Data), 80))
}

func callIDs(l *session.Log) []string {
	var ids []string
	for _, e := range l.Own() {
		var d session.ToolCallData
		if e.Type == session.TypeToolCall && e.Decode(&d) == nil {
			ids = append(ids, d.CallID)
		}
	}
	if len(ids) == 0 {
		return []string{"none"}
	}
	return ids
}

// checkRootEnds checks how the root's first turn ended (error-turn,
// hang-turn).
func checkRootEnds(r *report, b *builtin, root *session.Log) {
	if b.rootEnds == "" {
		return
	}
	why := map[string]string{
		session.TurnError:     "its model call failed (the playbook answers with an error finish, code SERVER)",
		session.TurnAborted:   fmt.Sprintf("its model call hung until the turn's timeout (turnTimeout %s) cancelled it", b.turnTimeout),
		session.TurnCompleted: fmt.Sprintf("its first model call failed and maxAttempts %d allows a retry, which answers", b.maxAttempts),
	}[b.rootEnds]
	fix := map[string]string{
		session.TurnError:     `when a model call's stream ends with a finish of kind "error" (and no retry is left: maxAttempts), end the turn with reason kind "error"`,
		session.TurnAborted:   `when the turn's context ends (env.EachPrompt applies turnTimeout) while the model streams, record the aborted finish and end the turn with reason kind "aborted"`,
		session.TurnCompleted: fixRetry,
	}[b.rootEnds]
	starts := 0
	for _, e := range root.Own() {
		if e.Type == session.TypeTurnStart {
			// Only turn 1's own turn/end counts: a later turn's says
			// nothing about how turn 1 ended.
			if starts++; starts > 1 {
				r.log(root, b.endRule, fix, "turn 1 has no turn/end before turn 2's turn/start at seq %d, but %s: turn 1 must end %q", e.Seq, why, b.rootEnds)
				return
			}
		}
		var d session.TurnEndData
		if e.Type != session.TypeTurnEnd || e.Decode(&d) != nil {
			continue
		}
		if d.Reason.Kind != b.rootEnds {
			r.log(root, b.endRule, fix, "turn %d ended %q, but %s: it must end %q", d.Turn, d.Reason.Kind, why, b.rootEnds)
		}
		return
	}
	r.log(root, b.endRule, fix, "the log has no turn/end, but %s: turn 1 must end %q", why, b.rootEnds)
}
