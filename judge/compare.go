package judge

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/par"
	"github.com/agentsnap/agentsnap/session"
)

// Difference is the first place where a replayed session's log differs from
// its fixture.
//
// A Difference is a plain value, made by CompareLogs from two trees of
// logs with no replay, and hence no secrets, in sight: Golden, Replay,
// Note and String hold the logs' text as it is, a key an agent wrote into
// a message included. The views that show the replay's secrets as
// [REDACTED] are Outcome.Report and Err, ScheduleResult.Report and Err,
// and GoldenResult.Message; print those, not String.
type Difference struct {
	Session string // lineage label: root, session 1, ...
	Lineage string // how the session was created, e.g. "fork of root via call_7"
	Seq     int64  // -1 for the header or a missing session
	Type    string // event type at Seq
	Call    string // for a tool event, the tool call it is of: "turn 1 step 2, lookup call call_7"
	Field   string // JSON path of the first differing member, e.g. data.chunk.text
	Golden  string // the fixture's value (or line)
	Replay  string // the replay's value (or line)
	Note    string // a sentence when there is no field to show
	// Inherited is set when Seq is among the events a fork inherits
	// (before its seedLength): its parent's difference, in its copy.
	Inherited bool
}

// String says the difference in one line, as a report lists it: the
// session, then where its log differs and the two values, or the note.
func (d Difference) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): ", d.Session, d.Lineage)
	switch {
	case d.Note != "":
		b.WriteString(d.Note)
	case d.Seq < 0:
		fmt.Fprintf(&b, "header %s: golden %s, replay %s", d.Field, d.Golden, d.Replay)
	default:
		fmt.Fprintf(&b, "seq %d (%s%s): %s: golden %s, replay %s", d.Seq, d.Type, d.of(), d.Field, d.Golden, d.Replay)
	}
	if d.Inherited {
		b.WriteString(" (in the turns it inherits: its parent's difference, as its copy shows it)")
	}
	return b.String()
}

// of is ", " and the tool call when the difference is in a tool event,
// else "".
func (d Difference) of() string {
	if d.Call == "" {
		return ""
	}
	return ", " + d.Call
}

// toolCallOf names the tool call a tool event is of, so a difference in
// a tool's result says which call's; "" for any other event.
func toolCallOf(e *session.Event) string {
	var turn, step int
	var id, name string
	switch e.Type {
	case session.TypeToolCall:
		var d session.ToolCallData
		if e.Decode(&d) != nil {
			return ""
		}
		turn, step, id, name = d.Turn, d.Step, d.CallID, d.Name
	case session.TypeToolRecorded:
		var d session.ToolRecordedData
		if e.Decode(&d) != nil {
			return ""
		}
		turn, step, id, name = d.Turn, d.Step, d.CallID, d.Name
	case session.TypeToolResult:
		var d session.ToolResultData
		if e.Decode(&d) != nil || len(d.Message.Content) != 1 {
			return ""
		}
		turn, step, id, name = d.Turn, d.Step, d.Message.Content[0].ToolCallID, d.Message.Content[0].Name
	default:
		return ""
	}
	if id == "" {
		return ""
	}
	return fmt.Sprintf("turn %d step %d, %s call %s", turn, step, name, id)
}

// pair is a recorded session and its replayed counterpart (either may be nil).
type pair struct {
	key            string
	label, lineage string
	golden, replay *session.Log
}

// pairSessions matches recorded and replayed sessions by lineage key, in
// the recording's lineage order, replay-only sessions last. A recorded and
// a replayed child left unpaired under the same parent pair with each
// other in order: their headers disagree on how the child was created (a
// lost parentCallId, say), and the header comparison names the member.
func pairSessions(golden, replay []*session.Log) []pair {
	gk, rk := session.LineageKeys(golden), session.LineageKeys(replay)
	byKey := map[string]*session.Log{}
	for _, l := range replay {
		byKey[rk[l.Header.ID]] = l
	}
	var out []pair
	paired := map[*session.Log]bool{}
	gat := placesOf(golden)
	for i, l := range golden {
		k := gk[l.Header.ID]
		p := pair{key: k, label: label(i), lineage: lineageBy(l, golden, gat), golden: l, replay: byKey[k]}
		if p.replay != nil {
			paired[p.replay] = true
		}
		out = append(out, p)
	}
	// Leftovers of one parent, in order: golden parent key -> replay logs.
	spare := map[string][]*session.Log{}
	for _, l := range replay {
		if !paired[l] && l.Header.IsChild() {
			parent := rk[l.Header.ParentSession]
			spare[parent] = append(spare[parent], l)
		}
	}
	for i := range out {
		p := &out[i]
		if p.replay != nil || !p.golden.Header.IsChild() {
			continue
		}
		parent := gk[p.golden.Header.ParentSession]
		if s := spare[parent]; len(s) > 0 {
			p.replay, spare[parent] = s[0], s[1:]
			paired[p.replay] = true
		}
	}
	rat := placesOf(replay)
	for _, l := range replay {
		if !paired[l] {
			out = append(out, pair{key: rk[l.Header.ID], label: "extra session", lineage: lineageBy(l, replay, rat), replay: l})
		}
	}
	return out
}

func label(i int) string {
	if i == 0 {
		return "root"
	}
	return "session " + strconv.Itoa(i)
}

// lineage describes how l was created, naming its parent by label.
func lineage(l *session.Log, tree []*session.Log) string {
	return lineageBy(l, tree, nil)
}

// placesOf maps each session id of a tree of many sessions to its last
// place there, the session lineage names as a parent of that id, so that
// describing each of thousands of sessions does not go through the tree;
// nil for a few, which lineageBy goes through.
func placesOf(tree []*session.Log) map[string]int {
	if len(tree) < parallelSessions {
		return nil
	}
	at := make(map[string]int, len(tree))
	for i, o := range tree {
		at[o.Header.ID] = i
	}
	return at
}

// lineageBy is lineage with the places of tree's ids (placesOf), or nil.
func lineageBy(l *session.Log, tree []*session.Log, at map[string]int) string {
	h := &l.Header
	if h.ParentSession == "" {
		return "root session"
	}
	parent := h.ParentSession
	if at != nil {
		if i, ok := at[h.ParentSession]; ok {
			parent = label(i)
		}
	} else {
		for i, o := range tree {
			if o.Header.ID == h.ParentSession {
				parent = label(i)
			}
		}
	}
	mode := string(h.Mode)
	if mode == "" {
		mode = "child"
	}
	call := h.ParentCallID
	if call == "" {
		call = "an unrecorded call"
	}
	return fmt.Sprintf("%s of %s via %s", mode, parent, call)
}

// diffTrees pairs the sessions of two trees by lineage, normalises what
// legitimately differs (times, machine paths, session ids the trees name
// differently) and returns the first difference of each pair that
// differs, in golden's lineage order (CompareLogs).
//
// cwd is the working folder the replay ran in, "" when unknown.
func diffTrees(golden, replay []*session.Log, cwd string) []Difference {
	pairs, n := pairsOf(golden, replay, cwd)
	diffs := make([]*Difference, len(pairs))
	eachSession(len(pairs), func(i int) { diffs[i] = compareSession(pairs[i], n) })
	var out []Difference
	for _, d := range diffs {
		if d != nil {
			out = append(out, *d)
		}
	}
	return out
}

// pairsOf pairs the sessions of two trees (pairSessions) and returns the
// normaliser of what legitimately differs between them. It reads only the
// logs' headers.
func pairsOf(golden, replay []*session.Log, cwd string) ([]pair, *normalizer) {
	pairs := pairSessions(golden, replay)
	// Only ids that differ need rewriting; with lineage ids (recorder and
	// replay both use them) there are none, and events compare as encoded.
	ids := map[string]string{}
	for _, p := range pairs {
		if p.golden != nil && p.replay != nil && p.replay.Header.ID != p.golden.Header.ID {
			ids[p.replay.Header.ID] = p.golden.Header.ID
		}
	}
	return pairs, newNormalizer(ids, cwd)
}

// eachSession calls f(i) for each of n sessions (pairs of them, or logs):
// on every processor from parallelSessions on.
func eachSession(n int, f func(i int)) {
	if n >= parallelSessions {
		par.For(n, f)
		return
	}
	for i := range n {
		f(i)
	}
}

// parallelSessions is how many sessions a verdict works on in parallel
// from (agentsnap serve's thousands); a check's few go faster on one
// goroutine.
const parallelSessions = 64

// verdict is what one pair of sessions says: its first difference, and
// the drift that difference is, if it is one. It keeps nothing of either
// log.
type verdict struct {
	diff *Difference
	// tool, count and request are toolDriftAt's, countDriftAt's and
	// driftAt's at diff, where it asks them: the drift the difference is,
	// when it is the first.
	tool, count, request *Drift
}

// judgePair compares one pair of sessions.
func judgePair(p pair, n *normalizer) verdict {
	v := verdict{diff: compareSession(p, n)}
	d := v.diff
	if d == nil {
		return v
	}
	// A session whose first difference is in what its next model call
	// sends — the request, or the messages that make its conversation —
	// drifted: the agent sent something else before anything else went
	// wrong. (A replay that sent another conversation may have an event
	// the recording has not, such as a history/replace: the replay's
	// type.)
	replayType := ""
	if d.Field == "type" {
		replayType = d.Replay
	}
	if d.Type == session.TypeToolRecorded {
		v.tool = toolDriftAt(p, d.Seq)
	}
	if d.Type == session.TypeCountTokens || replayType == session.TypeCountTokens {
		v.count = countDriftAt(p, d)
	}
	if conversationEvent(d.Type) || conversationEvent(replayType) || toolAttachment(d) {
		v.request = driftAt(p, d.Seq)
	}
	return v
}

// toolAttachment reports whether d is in an image or file of a tool
// result: one the agent sends in its next request, as it sends a user's.
// That call's drift names the message and the image that changed (as for
// a user's image) rather than a digest's field of the tool/result. A tool
// result's text that changed stays a difference of the tool/result: what
// the tool said (and the reference runtime's tools are the agent's own).
func toolAttachment(d *Difference) bool {
	return d.Type == session.TypeToolResult && strings.Contains(d.Field+".", ".attachment.")
}

// compareSession returns the first difference of one pair, or nil.
func compareSession(p pair, n *normalizer) *Difference {
	d := &Difference{Session: p.label, Lineage: p.lineage, Seq: -1}
	switch {
	case p.replay == nil:
		d.Note = fmt.Sprintf("the replay never created this session (recorded as %s)", p.golden.Header.ID)
		return d
	case p.golden == nil:
		d.Note = fmt.Sprintf("the replay created a session the recording does not have (%s)", p.replay.Header.ID)
		return d
	}
	if !sameHeader(&p.golden.Header, &p.replay.Header, n) {
		if gh, rh := n.header(p.golden.Header), n.header(p.replay.Header); !bytes.Equal(gh, rh) {
			d.Field, d.Golden, d.Replay = firstFieldDiff(gh, rh)
			return d
		}
	}
	ge, re := p.golden.Events, p.replay.Events
	for i := 0; i < len(ge) && i < len(re); i++ {
		if sameBut(&ge[i], &re[i]) {
			continue // equal encodings normalise alike
		}
		older := olderRequest(&ge[i], re[i])
		if sameBut(&ge[i], &older) {
			continue // a request/header of a fixture recorded before, otherwise the same
		}
		g, r := n.event(ge[i]), n.event(older)
		if bytes.Equal(g, r) {
			continue
		}
		d.Seq, d.Type, d.Call = int64(i), ge[i].Type, toolCallOf(&ge[i])
		d.Inherited = i < p.golden.Header.SeedLength
		if ge[i].Type != re[i].Type {
			d.Field, d.Golden, d.Replay = "type", ge[i].Type, re[i].Type
			return d
		}
		d.Field, d.Golden, d.Replay = firstFieldDiff(g, r)
		return d
	}
	switch {
	case len(re) < len(ge):
		d.Seq, d.Type = int64(len(re)), ge[len(re)].Type
		d.Note = fmt.Sprintf("the replay ends after %d events; the recording goes on with seq %d (%s) and %d more", len(re), len(re), ge[len(re)].Type, len(ge)-len(re)-1)
		return d
	case len(re) > len(ge):
		d.Seq, d.Type = int64(len(ge)), re[len(ge)].Type
		d.Note = fmt.Sprintf("the replay goes on after the recording's %d events, with seq %d (%s) and %d more", len(ge), len(ge), re[len(ge)].Type, len(re)-len(ge)-1)
		return d
	}
	return nil
}

// sameBut reports whether two events encode to the same line once their
// times are zeroed, comparing fields instead of encoding both: the common
// case of a replay, where the normaliser would have nothing to rewrite.
// It may say false for events that normalise alike; the caller then
// normalises them.
func sameBut(a, b *session.Event) bool {
	return a.Type == b.Type && a.Seq == b.Seq && a.Ignorable == b.Ignorable &&
		sameRaw(a.Data, b.Data) && sameRaw(a.SurfaceOp, b.SurfaceOp) &&
		(a.SourceEventSeqs == nil) == (b.SourceEventSeqs == nil) && slices.Equal(a.SourceEventSeqs, b.SourceEventSeqs) &&
		len(a.Extra) == 0 && len(b.Extra) == 0
}

// sameHeader is sameBut for headers, whose time is createdAt; a recorded
// {{cwd}} matches the replay's working folder (see normalizer.sameCwd).
func sameHeader(a, b *session.Header, n *normalizer) bool {
	return a.ID == b.ID && n.sameCwd(a.Cwd, b.Cwd) && a.ParentSession == b.ParentSession && a.SeedLength == b.SeedLength &&
		a.Origin == b.Origin && a.DelegationDepth == b.DelegationDepth && a.AgentPreset == b.AgentPreset &&
		a.ParentCallID == b.ParentCallID && a.Mode == b.Mode && len(a.Extra) == 0 && len(b.Extra) == 0
}

// sameRaw compares raw members the way the encoder writes them: a nil
// member is absent, an empty one is not.
func sameRaw(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
