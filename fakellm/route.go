package fakellm

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// bind returns the recorded session the live caller replays, binding it at
// the caller's first call. The caller holds d.mu.
func (d *Driver) bind(req *llm.Request) (*replay, error) {
	ref := req.Session
	if r, ok := d.byLive[ref.ID]; ok {
		return r, nil
	}
	var r *replay
	var err error
	if ref.IsRoot() {
		r, err = d.bindRoot(req)
	} else {
		r, err = d.bindChild(req)
	}
	if err != nil {
		return nil, err
	}
	r.live = ref.ID
	d.byLive[ref.ID] = r
	return r, nil
}

// Bind binds the live session ref to the recorded session its first model
// call would replay — found as that call would find it — and serves
// nothing. It is for a caller that sends the session's calls elsewhere: a
// recorder that re-records one session while its siblings replay binds it
// at once, so that a sibling created by the same call id is not bound to
// its recording by asking first (children of one call id whose ids are
// not session.LineageIDs' are bound in the order they first ask). A
// session bound already stays bound. The error says why ref cannot be
// bound; it is not kept for [Driver.Check], since no call was refused.
func (d *Driver) Bind(ref llm.SessionRef) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.bind(&llm.Request{Session: ref})
	return err
}

func (d *Driver) bindRoot(req *llm.Request) (*replay, error) {
	if d.root.live != "" {
		return nil, d.advised(fmt.Errorf("fakellm: %w: a second root session %s (%s); the recording has one root, already bound to live session %s — ",
			ErrUnrecordedSession, req.Session.ID, requestSummary(req), d.root.live))
	}
	return d.root, nil
}

// bindChild finds the recorded child of the live parent's recorded session
// that the same tool call created. Recorded children without a
// parentCallId (dsh logs) are taken in first-call order instead, and the
// driver notes it.
func (d *Driver) bindChild(req *llm.Request) (*replay, error) {
	ref := req.Session
	parent, ok := d.byLive[ref.ParentID]
	if !ok {
		return nil, d.advised(fmt.Errorf("fakellm: %w: child session %s of live session %s, created by call %q (%s): its parent has made no model call, so it is bound to no recorded session — ",
			ErrUnrecordedSession, ref.ID, ref.ParentID, ref.ParentCallID, requestSummary(req)))
	}
	var byOrder, bound *replay
	var candidates []*replay
	for _, c := range parent.children {
		callID := c.script.Header.ParentCallID
		if callID == "" {
			if byOrder == nil && c.live == "" {
				byOrder = c
			}
			continue
		}
		if ref.ParentCallID == "" || callID != ref.ParentCallID {
			continue
		}
		if c.live != "" {
			bound = c
			continue
		}
		candidates = append(candidates, c)
	}
	if c := pickCreated(parent, ref, candidates); c != nil {
		if ref.Mode != "" && c.script.Header.Mode != "" && ref.Mode != c.script.Header.Mode {
			return nil, d.advised(fmt.Errorf("fakellm: %w: %s: the live child created by call %q is a %s, the recorded one a %s — the agent took another path; ",
				ErrPathMismatch, c.describe(), ref.ParentCallID, ref.Mode, c.script.Header.Mode))
		}
		return c, nil
	}
	if bound != nil {
		return nil, d.advised(fmt.Errorf("fakellm: %w: child session %s of %s, created by call %q: every recorded child of that call is already bound (the last to live session %s) — the agent created more children with this call id than the recording (%s) — ",
			ErrUnrecordedSession, ref.ID, parent.describe(), ref.ParentCallID, bound.live, requestSummary(req)))
	}
	if byOrder != nil {
		d.note("fakellm: %s has no parentCallId (a dsh log?); live child %s (created by call %q) was routed to it by first-call order, which is deterministic only if the children start in a fixed order",
			byOrder.describe(), ref.ID, ref.ParentCallID)
		return byOrder, nil
	}
	return nil, d.advised(fmt.Errorf("fakellm: %w: session %s/%s (%s): %s has no recorded child created by call %q (recorded children: %s) — the agent delegated where the recording did not; ",
		ErrUnrecordedSession, parent.lineage, ref.ParentCallID, requestSummary(req), parent.describe(), ref.ParentCallID, childList(parent)))
}

// pickCreated chooses among the unbound recorded children of one call id
// (a parent may reuse an id in later steps: servers that send no ids, or
// number them per response) the one the live child ref stands for. A live
// id that session.LineageIDs gave (ChildID's "#n") says which of the
// parent's children of the id it is in creation order, the order that
// numbers the recorded ones too (session.CreationOrder): the n-th is
// taken, whenever it first asks. Else the one created at the step the
// live parent is at — its last replayed call — wins, and else the first,
// since one parent's steps run one after another; a child that first asks
// after its parent went on to a later step that reused the id is then
// told apart only by its id.
func pickCreated(parent *replay, ref llm.SessionRef, candidates []*replay) *replay {
	if len(candidates) == 0 {
		return nil
	}
	if n := session.ChildNumber(ref.ID, ref.ParentID, ref.ParentCallID); n > 0 {
		want := session.ChildID(parent.lineage, ref.ParentCallID, n)
		for _, c := range candidates {
			if c.lineage == want {
				return c
			}
		}
	}
	if parent.cursor > 0 {
		last := parent.script.Entries[parent.cursor-1]
		for _, c := range candidates {
			if c.created != nil && c.created.turn == last.Turn && c.created.step == last.Step {
				return c
			}
		}
	}
	return candidates[0]
}

func (d *Driver) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	d.notes = append(d.notes, msg)
	if d.opts.logf != nil {
		d.opts.logf("%s", msg)
	}
}

func childList(p *replay) string {
	if len(p.children) == 0 {
		return "none"
	}
	parts := make([]string, len(p.children))
	for i, c := range p.children {
		h := &c.script.Header
		id := h.ParentCallID
		if id == "" {
			id = "(no call id)"
		}
		if h.Mode != "" {
			id += " (" + string(h.Mode) + ")"
		}
		parts[i] = id
	}
	return strings.Join(parts, ", ")
}

// requestSummary shows the live call the way a strict fake should: where it
// is and the last message it sends.
func requestSummary(req *llm.Request) string {
	s := fmt.Sprintf("live call at turn %d step %d", req.Turn, req.Step)
	if req.Session.Mode != "" {
		s = fmt.Sprintf("live %s call at turn %d step %d", req.Session.Mode, req.Turn, req.Step)
	}
	if n := len(req.Messages); n > 0 {
		s += ", last message " + messageSummary(&req.Messages[n-1])
	}
	return s
}

func messageSummary(m *session.Message) string {
	text := m.Text()
	if text == "" {
		kinds := make([]string, len(m.Content))
		for i, p := range m.Content {
			kinds[i] = p.Type
		}
		text = "[" + strings.Join(kinds, " ") + "]"
	}
	const max = 80
	if r := []rune(text); len(r) > max {
		text = string(r[:max]) + "…"
	}
	return fmt.Sprintf("%s: %q", m.Role, text)
}
