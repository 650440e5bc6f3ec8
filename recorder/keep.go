package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Reuse is what an only-changed recording kept of the fixture and what it
// recorded anew.
type Reuse struct {
	// Kept lists, by lineage path, the sessions that replayed every call
	// and whose logs came out as recorded: their files keep every byte.
	Kept []string
	// Changed lists, in lineage order, every session that asked the model
	// or whose log changed; one that asked the model and got its recorded
	// answers back keeps its file too (Change.Kept), and is listed here
	// only, so a summary says one thing of each session.
	Changed []Change
	// Gone lists the recorded sessions the new recording does not have.
	Gone     []string
	Replayed int           // model calls replayed from the recording
	Live     int           // model calls sent to the model (live, or the playbook)
	Tokens   budget.Tokens // the usage the model reported for them
	// Cost is Tokens at scenario.json's price for the model, when Priced.
	Cost   float64
	Priced bool
}

// Change is one session that asked the model or whose log changed.
type Change struct {
	Session  string // lineage path, such as root/call_1
	New      bool   // the recording had no such session
	Kept     bool   // its calls to the model came out as recorded: the log kept its bytes
	Replayed int    // its calls replayed from the recording
	Live     int    // its calls sent to the model
	From     int    // the 1-based call it asked the model from; 0 for none
	Turn     int    // where call From was
	Step     int
	Why      string // why it did
	Tokens   budget.Tokens
}

// Lines describes the reuse in lines for a summary: one for the calls,
// then one per changed session, the kept ones, the gone ones.
func (u *Reuse) Lines() []string {
	cost := ""
	if u.Priced {
		cost = ", cost " + budget.FormatCost(u.Cost)
	}
	tokens := ""
	if u.Live > 0 {
		tokens = ": " + u.Tokens.String() + cost
	}
	out := []string{fmt.Sprintf("only changed: %s replayed from the recording, %d sent to the model%s",
		english.Count(u.Replayed, "model call"), u.Live, tokens)}
	for _, c := range u.Changed {
		var line string
		switch {
		case c.Kept:
			// Not "re-recorded": the log is the recorded one, byte for byte.
			line = fmt.Sprintf("%s: kept as recorded, though %s went to the model again from model call %d (turn %d step %d) (%s): %s; the answers came back as recorded",
				c.Session, english.Count(c.Live, "call"), c.From, c.Turn, c.Step, c.Tokens, c.Why)
		case c.Live == 0 && c.Why != "":
			line = fmt.Sprintf("%s: changed though all %d of its calls replayed: %s", c.Session, c.Replayed, c.Why)
		case c.Live == 0:
			line = fmt.Sprintf("%s: changed though all %d of its calls replayed (its own events differ)", c.Session, c.Replayed)
		case c.New:
			line = fmt.Sprintf("%s: new, %s sent to the model (%s): %s", c.Session, english.Count(c.Live, "call"), c.Tokens, c.Why)
		default:
			line = fmt.Sprintf("%s: re-recorded from model call %d (turn %d step %d), %s sent to the model (%s) after %d replayed: %s",
				c.Session, c.From, c.Turn, c.Step, english.Count(c.Live, "call"), c.Tokens, c.Replayed, c.Why)
		}
		out = append(out, line)
	}
	if len(u.Kept) > 0 {
		out = append(out, "kept as recorded: "+strings.Join(u.Kept, ", "))
	}
	if len(u.Gone) > 0 {
		out = append(out, "no longer created: "+strings.Join(u.Gone, ", "))
	}
	return out
}

// keepRecorded makes the rendered logs keep what the recording had: the
// times of every event up to a session's first difference from its
// recorded self (same lineage path), its header when only createdAt
// differs, and a fork child's seed as its parent now has it, so an
// unchanged session comes out byte for byte as recorded — its file is
// copied — and a seed stays its parent's prefix. It replaces rendered[i]
// and its file in files, and returns the lineage paths of the logs kept
// whole.
func keepRecorded(files map[string][]byte, rendered, old []*session.Log) map[string]bool {
	newKeys, oldKeys := session.LineageKeys(rendered), session.LineageKeys(old)
	recorded := make(map[string]*session.Log, len(old))
	for _, o := range old {
		recorded[oldKeys[o.Header.ID]] = o
	}
	final := make(map[string]*session.Log, len(rendered))
	kept := map[string]bool{}
	for i, l := range rendered {
		m := &session.Log{Path: l.Path, Header: l.Header, Events: slices.Clone(l.Events)}
		o := recorded[newKeys[l.Header.ID]]
		if o != nil {
			n := samePrefix(m.Events, o.Events)
			for k := range n {
				m.Events[k].Time = o.Events[k].Time
			}
			if sameHeader(&m.Header, &o.Header) {
				m.Header = o.Header
			}
		}
		if sl := m.Header.SeedLength; sl > 0 {
			if p := final[m.Header.ParentSession]; p != nil && sl <= len(p.Events) && sl <= len(m.Events) && samePrefix(m.Events[:sl], p.Events[:sl]) == sl {
				copy(m.Events, p.Events[:sl])
			}
		}
		final[l.Header.ID] = m
		rendered[i] = m
		name := fixture.RootLog
		if i > 0 {
			name = fixture.ChildLog(i)
		}
		if o != nil && identical(m, o) {
			if b, err := os.ReadFile(o.Path); err == nil {
				files[name] = b
				kept[newKeys[l.Header.ID]] = true
				continue
			}
		}
		files[name] = session.Encode(&m.Header, m.Events)
	}
	return kept
}

// samePrefix returns how many events a and b share from the start, equal
// but for their times.
func samePrefix(a, b []session.Event) int {
	var x, y []byte
	for i := range min(len(a), len(b)) {
		ea, eb := a[i], b[i]
		ea.Time, eb.Time = 0, 0
		x, y = session.AppendEvent(x[:0], &ea), session.AppendEvent(y[:0], &eb)
		if !bytes.Equal(x, y) {
			return i
		}
	}
	return min(len(a), len(b))
}

// sameHeader reports whether two headers are equal but for createdAt.
func sameHeader(a, b *session.Header) bool {
	x, y := *a, *b
	x.CreatedAt, y.CreatedAt = 0, 0
	return bytes.Equal(session.AppendHeader(nil, &x), session.AppendHeader(nil, &y))
}

// identical reports whether two logs hold the same header and events,
// times included.
func identical(a, b *session.Log) bool {
	if len(a.Events) != len(b.Events) || !bytes.Equal(session.AppendHeader(nil, &a.Header), session.AppendHeader(nil, &b.Header)) {
		return false
	}
	var x, y []byte
	for i := range a.Events {
		x, y = session.AppendEvent(x[:0], &a.Events[i]), session.AppendEvent(y[:0], &b.Events[i])
		if !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// summary says what the only-changed recording r kept and re-recorded,
// from the new logs (rendered, in lineage order); nil for no reuse.
func (r *reuse) summary(rendered []*session.Log, sc *scenario.Scenario, model string) *Reuse {
	if r == nil {
		return nil
	}
	u := &Reuse{}
	old, kept := r.old, r.kept
	newKeys, oldKeys := session.LineageKeys(rendered), session.LineageKeys(old)
	was := map[string]*session.Log{}
	for _, o := range old {
		was[oldKeys[o.Header.ID]] = o
	}
	now := map[string]bool{}
	for _, l := range rendered {
		key := newKeys[l.Header.ID]
		now[key] = true
		s := r.of(l.Header.ID)
		if s == nil {
			s = &reused{}
		}
		c := Change{Session: key, New: was[key] == nil, Live: s.live, Tokens: s.tokens, Why: s.why}
		c.Replayed = s.calls - s.live
		if s.live > 0 {
			c.From, c.Turn, c.Step = s.liveFrom, s.turn, s.step
		}
		u.Replayed += c.Replayed
		u.Live += c.Live
		u.Tokens = u.Tokens.Plus(c.Tokens)
		if kept[key] {
			if c.Live == 0 {
				u.Kept = append(u.Kept, key)
				continue
			}
			c.Kept = true
		}
		if c.Live == 0 && !c.New {
			c.Why = memberChanges(l, was[key])
		}
		u.Changed = append(u.Changed, c)
	}
	for _, o := range old {
		if key := oldKeys[o.Header.ID]; !now[key] {
			u.Gone = append(u.Gone, key)
		}
	}
	if u.Live > 0 && sc.Prices != nil {
		if c, err := sc.Prices.Cost(budget.Call{Model: model, Tokens: u.Tokens}); err == nil {
			u.Cost, u.Priced = c, true
		}
	}
	return u
}

// memberChanges says why a session whose every call replayed was written
// anew: the members its header or its events of a type gained or lost
// from its recorded self — what an older agentsnap did not write yet
// (request/header's toolDigests, say), or a hand edit — or "" when no
// member came or went and only values differ.
func memberChanges(now, was *session.Log) string {
	var parts []string
	say := func(what string, now, was []json.RawMessage) {
		gained, lost := memberDiff(now, was)
		if len(gained) > 0 {
			parts = append(parts, fmt.Sprintf("the log gains %s in its %s, which the recording lacks (an older agentsnap made it, or it was edited)", quoted(gained), what))
		}
		if len(lost) > 0 {
			parts = append(parts, fmt.Sprintf("the log loses %s in its %s, which this agentsnap does not write (the recording was edited, or made by a newer agentsnap)", quoted(lost), what))
		}
	}
	say("header", []json.RawMessage{session.AppendHeader(nil, &now.Header)}, []json.RawMessage{session.AppendHeader(nil, &was.Header)})
	nowData, wasData := dataByType(now.Events), dataByType(was.Events)
	for _, typ := range slices.Sorted(maps.Keys(nowData)) {
		if wasData[typ] != nil {
			say(typ+" events", nowData[typ], wasData[typ])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ")
}

// dataByType groups the events' data by event type.
func dataByType(events []session.Event) map[string][]json.RawMessage {
	out := map[string][]json.RawMessage{}
	for _, e := range events {
		out[e.Type] = append(out[e.Type], e.Data)
	}
	return out
}

// memberDiff returns the top-level members that some object of now has
// and no object of was (gained), and the other way round (lost), sorted.
func memberDiff(now, was []json.RawMessage) (gained, lost []string) {
	a, b := members(now), members(was)
	for k := range a {
		if !b[k] {
			gained = append(gained, k)
		}
	}
	for k := range b {
		if !a[k] {
			lost = append(lost, k)
		}
	}
	slices.Sort(gained)
	slices.Sort(lost)
	return gained, lost
}

// members is the set of top-level member names of the JSON objects.
func members(objs []json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for _, raw := range objs {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for k := range m {
				out[k] = true
			}
		}
	}
	return out
}

// quoted lists names as "a", "b" and "c".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
