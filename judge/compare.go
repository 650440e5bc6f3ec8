package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
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
	for i, l := range golden {
		k := gk[l.Header.ID]
		p := pair{key: k, label: label(i), lineage: lineage(l, golden), golden: l, replay: byKey[k]}
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
	for _, l := range replay {
		if !paired[l] {
			out = append(out, pair{key: rk[l.Header.ID], label: "extra session", lineage: lineage(l, replay), replay: l})
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
	h := &l.Header
	if h.ParentSession == "" {
		return "root session"
	}
	parent := h.ParentSession
	for i, o := range tree {
		if o.Header.ID == h.ParentSession {
			parent = label(i)
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

// olderRequest returns replay as a recording made before request/header
// held the API and the request settings, or each tool's digest, would have
// written it, when golden is such a recording: what it never recorded is
// not a difference (it shows once the fixture is recorded again).
func olderRequest(golden *session.Event, replay session.Event) session.Event {
	if golden.Type != session.TypeRequestHeader || replay.Type != session.TypeRequestHeader {
		return replay
	}
	noToolDigests := !bytes.Contains(golden.Data, toolDigestsKey) && bytes.Contains(replay.Data, toolDigestsKey)
	if noToolDigests {
		// Cut without decoding: every header of a fixture recorded before
		// comes here.
		if b := withoutToolDigests(replay.Data); b != nil {
			replay.Data, noToolDigests = b, false
		}
	}
	noAPI := !bytes.Contains(golden.Data, []byte(`"api":`)) && bytes.Contains(replay.Data, []byte(`"api":`))
	noToolsSetting := !bytes.Contains(golden.Data, toolsSettingKey) && bytes.Contains(replay.Data, toolsSettingKey)
	if !noAPI && !noToolDigests && !noToolsSetting {
		return replay
	}
	var d session.RequestHeaderData
	if replay.Decode(&d) != nil {
		return replay
	}
	if noAPI {
		d.API, d.Settings = "", nil
	}
	if noToolsSetting {
		var g session.RequestHeaderData
		if golden.Decode(&g) == nil {
			d.Settings = olderToolsSetting(g.Settings, d.Settings)
		}
	}
	if noToolDigests {
		d.ToolDigests = nil
	}
	if b, err := session.MarshalData(d); err == nil {
		replay.Data = b
	}
	return replay
}

var toolDigestsKey = []byte(`"toolDigests":`)

// toolsSettingKey is how a request header's settings hold the tools as
// sent (no other member of a header is named "tools").
var toolsSettingKey = []byte(`"tools":`)

// olderToolsSetting returns r, a replayed call's settings, without the
// tools as sent when g, its recording's, holds none: the readers record
// tools that say more than a name, a description and a schema (strict,
// eager_input_streaming, …) as the setting "tools" since 2026-12-07, and
// dropped those members before, so a fixture recorded before would fail
// every replay of an agent that sends them. Such a recording is taken for
// one made before: adding those members to tools that had none is no
// drift until the fixture is recorded again (then a change is). Settings
// are canonical (sorted members, canonical values), so the rest is
// written again byte for byte.
func olderToolsSetting(g, r json.RawMessage) json.RawMessage {
	var gm, rm map[string]json.RawMessage
	if json.Unmarshal(r, &rm) != nil {
		return r
	}
	if _, ok := rm["tools"]; !ok {
		return r
	}
	if len(g) > 0 && json.Unmarshal(g, &gm) != nil {
		return r
	}
	if _, ok := gm["tools"]; ok {
		return r
	}
	delete(rm, "tools")
	if len(rm) == 0 {
		return nil
	}
	out := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(rm)) {
		if i > 0 {
			out = append(out, ',')
		}
		// As the wire writes a setting's name (wire.settings).
		out = append(append(jsonscan.AppendStdString(out, k), ':'), rm[k]...)
	}
	return append(out, '}')
}

// withoutToolDigests returns a copy of a request/header payload without
// its toolDigests member, as the encoder writes it (short hex digests), or
// nil when it holds none so written.
func withoutToolDigests(data []byte) []byte {
	key := []byte(`,"toolDigests":[`)
	i := bytes.Index(data, key)
	if i < 0 {
		return nil
	}
	for j := i + len(key); j < len(data); j++ {
		switch c := data[j]; {
		case c == ']':
			return slices.Concat(data[:i], data[j+1:])
		case c != '"' && c != ',' && (c < '0' || c > '9') && (c < 'a' || c > 'f'):
			return nil
		}
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

// firstFieldDiff decodes two JSON lines and returns the path of the first
// member that differs, with both values abbreviated.
func firstFieldDiff(golden, replay []byte) (field, g, r string) {
	// Both lines alike: a number read as json.Number on one side and as
	// float64 on the other never compares equal, and an equal count would
	// be named as the member that differs.
	exact := longDigits(golden) || longDigits(replay)
	gv, gerr := decodeExact(golden, exact)
	rv, rerr := decodeExact(replay, exact)
	if gerr != nil || rerr != nil {
		return "line", abbrev(string(golden)), abbrev(string(replay))
	}
	path, a, b := walk("", gv, rv)
	if path == "" {
		path = "(whole line)"
	}
	return path, a, b
}

// decodeExact decodes a JSON value, with exact, its numbers as written:
// as float64 two counts past 2^53 would read alike (no field found to
// differ) or show as a number neither line holds. Only lines with such a
// number (16 digits or more) go through a Decoder, which copies the line
// as it reads; the others, recorded texts of any size, decode in place.
func decodeExact(b []byte, exact bool) (any, error) {
	var v any
	if !exact {
		return v, json.Unmarshal(b, &v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// longDigits reports whether b holds a run of 16 digits or more, a
// decimal point within it not counted but not ending it: a number float64
// may not hold exactly, 123456789.123456789 too (or a string of digits).
func longDigits(b []byte) bool {
	run := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if run++; run >= 16 {
				return true
			}
		case c != '.':
			run = 0
		}
	}
	return false
}

// walk returns the first differing path under two decoded JSON values.
func walk(path string, a, b any) (string, string, string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			x, inA := av[k]
			y, inB := bv[k]
			sub := join(path, k)
			switch {
			case !inA:
				return sub, "(absent)", show(y)
			case !inB:
				return sub, show(x), "(absent)"
			}
			if p, g, r := walk(sub, x, y); p != "" {
				return p, g, r
			}
		}
		return "", "", ""
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(av) && i < len(bv); i++ {
			if p, g, r := walk(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); p != "" {
				return p, g, r
			}
		}
		if len(av) != len(bv) {
			return path, fmt.Sprintf("%d items", len(av)), fmt.Sprintf("%d items", len(bv))
		}
		return "", "", ""
	default:
		// A scalar (string, number, bool, null) is comparable; b of another
		// type is not equal, whatever it is. No copy of a long text.
		if a == b {
			return "", "", ""
		}
	}
	if path == "" {
		path = "(value)"
	}
	return path, show(a), show(b)
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func show(v any) string {
	if s, ok := v.(string); ok && len(s) > 4*abbrevRunes+8 {
		// Only the first runes show: marshal no more than hold them.
		v = s[:4*abbrevRunes+8]
	}
	b, _ := json.Marshal(v)
	return abbrev(string(b))
}

// abbrevRunes is how many runes of a value a difference shows.
const abbrevRunes = 160

// abbrev returns s cut to its first abbrevRunes runes, marked "…" when cut. It
// counts runes only up to the cut: a recorded text can be hundreds of
// megabytes, and a []rune of it four times that.
func abbrev(s string) string {
	i := 0
	for k := range s {
		if i == abbrevRunes {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
