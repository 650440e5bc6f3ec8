package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Drift is the first model call whose request differs from the recording's:
// the prompt, the tools, the conversation or the settings the agent sent
// changed, so the recorded answers no longer belong to it. Or, when Tool
// is set, the first call of a recorded tool whose arguments (or tool)
// differ from the recorded call with the same id, so the recorded result
// no longer belongs to it. Or, when Count is set, a token count the agent
// no longer asks for where it was recorded, or asks for where none was.
//
// A Drift is a plain value: Changes, and so String, quote what the agent
// sent as it sent it, a key it wrote into a message included. The views
// that show the replay's secrets as [REDACTED] are Outcome.Report and Err,
// and ScheduleResult.Report and Err; print those, not String. (A Drift
// carries no secrets, as a Difference carries none: the outcome that holds
// it knows those of the replay's context and redacts its report with them.)
type Drift struct {
	Session string // lineage label
	Lineage string
	Call    int // 1-based model call among the session's own, a fork's seed not counted (for a tool: the last one before it)
	Turn    int
	Step    int
	// Tool and ToolCall name a recorded tool's call that drifted: the
	// tool's name and the call id.
	Tool, ToolCall string
	// Count is the token count (count/tokens) that drifted: its 1-based
	// number among the session's own counts.
	Count   int
	Changes []string // what changed, one sentence each
}

// Kind names the drift as a report heads it: "request drift", "tool
// drift" or "token count drift".
func (d *Drift) Kind() string {
	switch {
	case d.Tool != "":
		return "tool drift"
	case d.Count > 0:
		return "token count drift"
	}
	return "request drift"
}

// String says the drift in one line, as a report lists it: the session,
// the model call (or the tool's call) and what changed.
func (d *Drift) String() string {
	if d.Tool != "" {
		return fmt.Sprintf("%s (%s), tool %s call %s (turn %d step %d): %s", d.Session, d.Lineage, d.Tool, d.ToolCall, d.Turn, d.Step, strings.Join(d.Changes, "; "))
	}
	if d.Count > 0 {
		return fmt.Sprintf("%s (%s), token count %d (turn %d step %d): %s", d.Session, d.Lineage, d.Count, d.Turn, d.Step, strings.Join(d.Changes, "; "))
	}
	return fmt.Sprintf("%s (%s), model call %d (turn %d step %d): %s", d.Session, d.Lineage, d.Call, d.Turn, d.Step, strings.Join(d.Changes, "; "))
}

// toolDriftAt explains a first difference at the replay's event seq that
// is a recorded tool's call made with other arguments (or another tool)
// than the recorded call of the same id, or returns nil.
func toolDriftAt(p pair, seq int64) *Drift {
	i := int(seq)
	if i < 0 || i >= len(p.golden.Events) || i >= len(p.replay.Events) {
		return nil
	}
	g, r := &p.golden.Events[i], &p.replay.Events[i]
	if g.Type != session.TypeToolRecorded || r.Type != session.TypeToolRecorded {
		return nil
	}
	var gd, rd session.ToolRecordedData
	if g.Decode(&gd) != nil || r.Decode(&rd) != nil || gd.CallID != rd.CallID {
		return nil
	}
	var changes []string
	if gd.Name != rd.Name {
		changes = append(changes, fmt.Sprintf("the call is to tool %s, recorded to %s", rd.Name, gd.Name))
	}
	if gd.Arguments != rd.Arguments {
		changes = append(changes, fmt.Sprintf("it was called with %s, recorded with %s", abbrev(rd.Arguments), abbrev(gd.Arguments)))
	}
	if len(changes) == 0 {
		return nil
	}
	call := 0
	for j := range i {
		if p.replay.Events[j].Type == session.TypeRequestHeader {
			call++
		}
	}
	call -= seedCalls(p.replay, i)
	return &Drift{Session: p.label, Lineage: p.lineage, Call: call, Turn: rd.Turn, Step: rd.Step, Tool: rd.Name, ToolCall: rd.CallID, Changes: changes}
}

// conversationEvent reports whether events of type typ make the
// conversation a model call sends: a session whose first difference is one
// of them sent another request at its next call.
func conversationEvent(typ string) bool {
	switch typ {
	case session.TypeRequestHeader, session.TypeUserMessage, session.TypeHistoryReplace:
		return true
	}
	return false
}

// driftAt explains the first model call at or after the replay's event
// seq whose request differs from the recording's same call: which call of
// the session it is and what changed. It returns nil when that call's
// request is the recorded one (the difference is not the request's).
func driftAt(p pair, seq int64) *Drift {
	call, rs := nextCall(p.replay.Events, int(seq))
	if rs < 0 {
		return nil
	}
	gs := nthCall(p.golden.Events, call)
	if gs < 0 {
		return nil
	}
	var g, r session.RequestHeaderData
	if p.golden.Events[gs].Decode(&g) != nil || p.replay.Events[rs].Decode(&r) != nil {
		return nil
	}
	if g.API == "" {
		r.API, r.Settings = "", g.Settings // recorded before they were (see olderRequest)
	}
	r.Settings = olderToolsSetting(g.Settings, r.Settings)
	changes := requestChanges(&g, &r)
	if len(changes) == 0 {
		return nil
	}
	if g.MessagesDigest != r.MessagesDigest {
		if m := firstMessage(p.golden.Events[:gs], p.replay.Events[:rs]); m != "" {
			changes = append(changes, m)
		}
	}
	if strayRoot(p, call, &g, &r) {
		changes = append(changes, fmt.Sprintf("this call does not go on from the root's conversation (another system prompt or first message than its call %d), as the recorded one did: it looks like a subagent's call made without the child's lineage, served from the root's script; "+
			`name the child's session on its calls (README, "An agent on an SDK: swap its HTTP client": wire.Spawn or wire.Fork on the child's context; behind agentsnap serve, the Agentsnap-* headers)`, call-1))
	}
	return &Drift{Session: p.label, Lineage: p.lineage, Call: call - seedCalls(p.replay, rs), Turn: r.Turn, Step: r.Step, Changes: changes}
}

// seedCalls is how many of l's request/header events a call at index i
// does not count: those of a fork's seed, which are its parent's calls,
// when i is past the seed, so a fork's calls are numbered among its own
// as CountModelCalls and an only-changed recording number them. A call
// within the seed keeps the number its parent gives it.
func seedCalls(l *session.Log, i int) int {
	n := l.Header.SeedLength
	if n <= 0 || i < n {
		return 0
	}
	calls := 0
	for j := range min(n, len(l.Events)) {
		if l.Events[j].Type == session.TypeRequestHeader {
			calls++
		}
	}
	return calls
}

// strayRoot reports whether the root's model call number call (its
// requests g recorded, r replayed) does not go on from the root's call
// before it, while the recorded one did: a subagent's call that named no
// session, which a runtime serves as the root's.
func strayRoot(p pair, call int, g, r *session.RequestHeaderData) bool {
	if p.replay.Header.IsChild() || call < 2 {
		return false
	}
	var gp, rp session.RequestHeaderData
	gi, ri := nthCall(p.golden.Events, call-1), nthCall(p.replay.Events, call-1)
	if gi < 0 || ri < 0 || p.golden.Events[gi].Decode(&gp) != nil || p.replay.Events[ri].Decode(&rp) != nil {
		return false
	}
	return goesOn(&gp, g) && !goesOn(&rp, r)
}

// goesOn reports whether request next goes on from the conversation of
// request prev: the same system prompt and the same first message (when
// the log has message digests to tell).
func goesOn(prev, next *session.RequestHeaderData) bool {
	if prev.SystemDigest != next.SystemDigest {
		return false
	}
	return len(prev.MessageDigests) == 0 || len(next.MessageDigests) == 0 || prev.MessageDigests[0] == next.MessageDigests[0]
}

// nextCall returns the number (1-based) and index of the first
// request/header at or after from in events, or -1.
func nextCall(events []session.Event, from int) (int, int) {
	n := 0
	for i := range events {
		if events[i].Type == session.TypeRequestHeader {
			n++
			if i >= from {
				return n, i
			}
		}
	}
	return n, -1
}

// nthCall returns the index of the n-th request/header in events, or -1.
func nthCall(events []session.Event, n int) int {
	for i := range events {
		if events[i].Type == session.TypeRequestHeader {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}

// firstMessage shows the first message that differs between the
// conversations two logs send at their next call, or "".
func firstMessage(golden, replay []session.Event) string {
	g, r := journal.Conversation(golden), journal.Conversation(replay)
	for i := 0; i < len(g) || i < len(r); i++ {
		switch {
		case i >= len(g):
			return fmt.Sprintf("message %d is new: %s", i+1, summary(&r[i]))
		case i >= len(r):
			return fmt.Sprintf("message %d is gone (recorded: %s)", i+1, summary(&g[i]))
		}
		// The attachments said first: a long text would cut them off the
		// summaries, which hold no tool result's.
		if ga, ra := attachments(&g[i]), attachments(&r[i]); !slices.Equal(ga, ra) {
			return fmt.Sprintf("message %d's %s changed: %s recorded, %s now", i+1, attachmentNoun(ga, ra), orNothing(ga), orNothing(ra))
		}
		if a, b := summary(&g[i]), summary(&r[i]); a != b {
			return fmt.Sprintf("message %d was %s, now %s", i+1, a, b)
		}
	}
	return ""
}

// attachments shows each image and file part of m, those in its tool
// results too, in order.
func attachments(m *session.Message) []string {
	var out []string
	for i := range m.Content {
		p := &m.Content[i]
		switch p.Type {
		case session.PartImage, session.PartFile:
			out = append(out, media(p))
		case session.PartToolResult:
			for j := range p.Content {
				if in := &p.Content[j]; in.Type == session.PartImage || in.Type == session.PartFile {
					out = append(out, media(in))
				}
			}
		}
	}
	return out
}

// attachmentNoun names what two lists of attachments hold: "image",
// "images", "file", "files", or "images and files".
func attachmentNoun(a, b []string) string {
	all := append(slices.Clip(a), b...)
	images := 0
	for _, s := range all {
		if strings.HasPrefix(s, "["+session.PartImage+" ") {
			images++
		}
	}
	noun := "image"
	switch images {
	case len(all):
	case 0:
		noun = "file"
	default:
		return "images and files"
	}
	if len(a) > 1 || len(b) > 1 {
		noun += "s"
	}
	return noun
}

// orNothing joins list, or says it is empty.
func orNothing(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, " ")
}

// summary shows a message in one line: its role and what it says.
func summary(m *session.Message) string {
	var parts []string
	for _, p := range m.Content {
		switch p.Type {
		case session.PartText:
			parts = append(parts, fmt.Sprintf("%q", p.Text))
		case session.PartToolCall:
			parts = append(parts, fmt.Sprintf("call %s %s %s", p.ID, p.Name, p.Arguments))
		case session.PartToolResult:
			text := session.Message{Content: p.Content}
			parts = append(parts, fmt.Sprintf("result %s %q", p.ToolCallID, text.Text()))
		case session.PartImage, session.PartFile:
			parts = append(parts, media(&p))
		}
	}
	return abbrev(m.Role + " " + strings.Join(parts, " "))
}

// media shows an image or file part: "[image image/png 5 bytes sha256:2cf24dba5fb0…]".
func media(p *session.Part) string {
	return "[" + p.Type + " " + llm.Describe(p.Attachment) + "]"
}

// requestChanges says in sentences what differs between two requests.
func requestChanges(g, r *session.RequestHeaderData) []string {
	var out []string
	if g.Provider != r.Provider || g.Model != r.Model {
		out = append(out, fmt.Sprintf("the model changed from %s/%s to %s/%s", g.Provider, g.Model, r.Provider, r.Model))
	}
	if g.API != r.API {
		out = append(out, fmt.Sprintf("the agent calls another API: %s recorded, %s now", orNone(g.API), orNone(r.API)))
	}
	switch {
	case g.SystemDigest == r.SystemDigest:
	case g.SystemChars == r.SystemChars:
		// The digest tells; the length alone would hide an edited letter.
		out = append(out, fmt.Sprintf("the system prompt changed (the same %d characters long, other text)", g.SystemChars))
	default:
		out = append(out, fmt.Sprintf("the system prompt changed (%d characters recorded, %d now)", g.SystemChars, r.SystemChars))
	}
	if g.ToolsDigest != r.ToolsDigest {
		added, removed := setDiff(r.ToolNames, g.ToolNames), setDiff(g.ToolNames, r.ToolNames)
		if len(added) > 0 || len(removed) > 0 {
			out = append(out, fmt.Sprintf("the tools changed (added: %s; removed: %s)", list(added), list(removed)))
		}
		switch changed := changedTools(g, r); {
		case len(changed) > 0:
			out = append(out, changed...)
		case len(added) > 0 || len(removed) > 0: // said above
		case namedTools(g) && namedTools(r) && !slices.Equal(g.ToolNames, r.ToolNames):
			out = append(out, fmt.Sprintf("the tools are offered in another order (recorded: %s; now: %s)", list(g.ToolNames), list(r.ToolNames)))
		default: // no digest per tool tells which: a header recorded before they were
			out = append(out, "a tool's description or parameters changed")
		}
	}
	if !bytes.Equal(g.Settings, r.Settings) {
		out = append(out, "the request settings changed: "+settingsChanges(g.Settings, r.Settings))
	}
	if g.MessagesDigest != r.MessagesDigest {
		first := -1
		for i := 0; i < len(g.MessageDigests) && i < len(r.MessageDigests); i++ {
			if g.MessageDigests[i] != r.MessageDigests[i] {
				first = i
				break
			}
		}
		switch {
		case first >= 0:
			out = append(out, fmt.Sprintf("the conversation sent differs from message %d on (%d messages recorded, %d now)", first+1, g.MessageCount, r.MessageCount))
		default:
			out = append(out, fmt.Sprintf("the conversation sent has %d messages, the recording %d", r.MessageCount, g.MessageCount))
		}
	}
	return out
}

// namedTools reports whether h has a digest per tool, each tool named once:
// a header recorded before headers held them has none.
func namedTools(h *session.RequestHeaderData) bool {
	if len(h.ToolNames) != h.ToolCount || len(h.ToolDigests) != h.ToolCount {
		return false
	}
	for i, name := range h.ToolNames {
		if slices.Contains(h.ToolNames[:i], name) {
			return false
		}
	}
	return true
}

// changedTools names each tool both requests offer whose description or
// parameters changed, when both headers have each tool's digest.
func changedTools(g, r *session.RequestHeaderData) []string {
	if !namedTools(g) || !namedTools(r) {
		return nil
	}
	var out []string
	for i, name := range r.ToolNames {
		if k := slices.Index(g.ToolNames, name); k >= 0 && g.ToolDigests[k] != r.ToolDigests[i] {
			out = append(out, fmt.Sprintf("tool %q changed (its description or parameters)", name))
		}
	}
	return out
}

// settingsChanges names each setting that differs, with both values.
func settingsChanges(g, r json.RawMessage) string {
	var gm, rm map[string]json.RawMessage
	_ = json.Unmarshal(g, &gm)
	_ = json.Unmarshal(r, &rm)
	keys := map[string]bool{}
	for k := range gm {
		keys[k] = true
	}
	for k := range rm {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	var out []string
	for _, k := range sorted {
		a, inG := gm[k]
		b, inR := rm[k]
		switch {
		case !inG:
			out = append(out, fmt.Sprintf("%s added (%s)", k, abbrev(string(b))))
		case !inR:
			out = append(out, fmt.Sprintf("%s removed (was %s)", k, abbrev(string(a))))
		case !bytes.Equal(a, b):
			out = append(out, fmt.Sprintf("%s %s → %s", k, abbrev(string(a)), abbrev(string(b))))
		}
	}
	if len(out) == 0 {
		return "(the same members, written differently)"
	}
	return strings.Join(out, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "(none: a runtime on llm.Driver)"
	}
	return s
}

func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
