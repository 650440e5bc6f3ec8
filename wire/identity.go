package wire

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Session identity reaches the handler explicitly, never guessed from
// timing or from what a request says: an in-process agent tags the context
// of its model calls (Spawn, Fork), an agent in another process sends
// headers. A call with neither is the root session's.
//
// Headers, all optional for the root:
//
//	Agentsnap-Session: an id of the agent's choosing, the same on every call of the session; never empty
//	Agentsnap-Parent:  the parent's Agentsnap-Session (children only)
//	Agentsnap-Call:    the id of the parent's tool call that created the child
//	Agentsnap-Mode:    spawn or fork
const (
	HeaderSession = "Agentsnap-Session"
	HeaderParent  = "Agentsnap-Parent"
	HeaderCall    = "Agentsnap-Call"
	HeaderMode    = "Agentsnap-Mode"
)

// tag is a session as an agent names it in a context: the root, or a child
// of the tagged parent created by a tool call.
type tag struct {
	parent *tag
	callID string
	mode   session.Mode
}

type tagKey struct{}

// Spawn returns a context for the child session that the session of ctx
// creates with its tool call callID, starting with an empty conversation.
// Use it for every model call of the child (and pass it on: the child's
// own children are created from it). callID may be the call's function
// name when no other call of the parent with that name is waiting for its
// result (an agent whose calls have no ids, as Eino's Gemini model names
// them); the child is then that call's.
func Spawn(ctx context.Context, callID string) context.Context {
	return child(ctx, callID, session.ModeSpawn)
}

// Fork returns a context for the child session that the session of ctx
// creates with its tool call callID and that inherits the parent's
// completed turns: the child's log starts with them, and its seedLength is
// stamped from them when the child makes its first call. That call is
// recorded as sent: the parent's conversation and the prompt, or the
// inherited turns rendered the child's own way (a history/replace).
func Fork(ctx context.Context, callID string) context.Context {
	return child(ctx, callID, session.ModeFork)
}

func child(ctx context.Context, callID string, mode session.Mode) context.Context {
	return context.WithValue(ctx, tagKey{}, &tag{parent: tagOf(ctx), callID: callID, mode: mode})
}

// tagOf returns the session tag of ctx; nil means the root.
func tagOf(ctx context.Context) *tag {
	t, _ := ctx.Value(tagKey{}).(*tag)
	return t
}

// headerIdentity is a session as headers name it.
type headerIdentity struct {
	id, parent, callID string
	mode               session.Mode
}

// fromHeaders reads the Agentsnap-* headers; ok is false when there are
// none (a root call of an agent that does not send them).
func fromHeaders(h http.Header) (headerIdentity, bool, error) {
	id := headerIdentity{
		id:     h.Get(HeaderSession),
		parent: h.Get(HeaderParent),
		callID: h.Get(HeaderCall),
		mode:   session.Mode(h.Get(HeaderMode)),
	}
	if vs, sent := h[HeaderSession]; sent && id.id == "" && len(vs) > 0 {
		// An unset variable in the agent: the call would pass for the
		// root's, or for no one's, and no message could name it.
		return id, true, fmt.Errorf("%s is sent empty: send the session's id, the same on every call of the session, or leave the header out (a call without Agentsnap-* headers is the root's)", HeaderSession)
	}
	if id == (headerIdentity{}) {
		return id, false, nil
	}
	if id.id == "" {
		return id, true, fmt.Errorf("%s is missing: every call names its session when any Agentsnap-* header is sent", HeaderSession)
	}
	if id.parent == "" {
		if id.callID != "" || id.mode != "" {
			return id, true, fmt.Errorf("session %q has %s or %s but no %s; a child names its parent", id.id, HeaderCall, HeaderMode, HeaderParent)
		}
		return id, true, nil
	}
	if id.callID == "" {
		return id, true, fmt.Errorf("child session %q of %q has no %s: name the tool call that created it", id.id, id.parent, HeaderCall)
	}
	if id.mode != session.ModeSpawn && id.mode != session.ModeFork {
		return id, true, fmt.Errorf("child session %q: %s is %q; want spawn or fork", id.id, HeaderMode, id.mode)
	}
	return id, true, nil
}

// session finds or creates the session a request belongs to.
func (h *Handler) session(r *http.Request, req *Request) (*wireSession, error) {
	id, byHeaders, err := fromHeaders(r.Header)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if byHeaders {
		return h.byHeaderID(id)
	}
	if t := tagOf(r.Context()); t != nil || h.cfg.Lineage == Explicit {
		return h.byContextTag(t)
	}
	return h.infer(req)
}

func (h *Handler) rootSession() *wireSession {
	if h.root == nil {
		h.root = &wireSession{name: "root"}
		h.all = append(h.all, h.root)
	}
	return h.root
}

func (h *Handler) byContextTag(t *tag) (*wireSession, error) {
	if t == nil {
		return h.rootSession(), nil
	}
	if s, ok := h.byTag[t]; ok {
		return s, nil
	}
	parent, err := h.byContextTag(t.parent)
	if err != nil {
		return nil, err
	}
	s, err := h.newChild(parent, t.callID, t.mode, "")
	if err != nil {
		return nil, err
	}
	h.byTag[t] = s
	return s, nil
}

func (h *Handler) byHeaderID(id headerIdentity) (*wireSession, error) {
	if s, ok := h.byHeader[id.id]; ok {
		if s.namedAs != id.callID || s.mode != id.mode {
			return nil, fmt.Errorf("wire: session %q was created by call %q (%s) and now names call %q (%s); a session keeps its lineage: send the same %s and %s on every call", id.id, s.namedAs, s.mode, id.callID, id.mode, HeaderCall, HeaderMode)
		}
		return s, nil
	}
	if id.parent == "" {
		if h.root != nil && h.root.headerID != "" && h.root.headerID != id.id {
			return nil, fmt.Errorf("wire: a second root session %q (the root is %q); a replay serves one root, and a child names its parent in %s", id.id, h.root.headerID, HeaderParent)
		}
		s := h.rootSession()
		s.headerID = id.id
		h.byHeader[id.id] = s
		return s, nil
	}
	parent, ok := h.byHeader[id.parent]
	if !ok && h.root != nil && h.root.headerID == "" && id.parent == "root" {
		parent, ok = h.root, true // a root that sends no headers is "root"
	}
	if !ok {
		return nil, fmt.Errorf("wire: child session %q names parent %q, which has made no call; a parent calls the model before it delegates, and its children name it by its %s (a root that sends no headers is %q)", id.id, id.parent, HeaderSession, "root")
	}
	s, err := h.newChild(parent, id.callID, id.mode, id.id)
	if err != nil {
		return nil, err
	}
	h.byHeader[id.id] = s
	return s, nil
}

// newChild creates the session parent's tool call callID creates. The
// call must be one the parent's answers made: by its id, or by its
// function's name when exactly one open call has that name (Eino's Gemini
// model, like the Gemini API, gives a call no id and names it by its
// function). The caller holds h.mu.
func (h *Handler) newChild(parent *wireSession, callID string, mode session.Mode, headerID string) (*wireSession, error) {
	m := parent.madeCall(callID)
	if m == nil {
		var err error
		if m, err = parent.openCallNamed(callID, mode); err != nil {
			return nil, err
		}
	}
	if m == nil {
		return nil, parent.noCall(callID, mode)
	}
	m.children++
	s := &wireSession{parent: parent, callID: m.id, namedAs: callID, mode: mode, headerID: headerID, name: parent.name + "/" + m.id}
	h.all = append(h.all, s)
	return s, nil
}

// noCall is the refusal of a child of s that names callID, no call of s
// that may create it. When calls of that name got their results, the
// child named its call by the function's name too late.
func (s *wireSession) noCall(callID string, mode session.Mode) error {
	made := make([]string, 0, len(s.made))
	var named []string
	for _, c := range s.made {
		made = append(made, c.id)
		if c.name == callID {
			named = append(named, c.id)
		}
	}
	if len(named) > 0 {
		return fmt.Errorf("wire: %s child %s names call %q, the function of its parent %s's calls %s, which all have their results: a child named by its call's function must start while that call is open; name the id of the parent's tool call that creates the child", mode, s.name+"/"+callID, callID, s.name, strings.Join(named, ", "))
	}
	list := strings.Join(made, ", ")
	if list == "" {
		list = "none yet"
	}
	return fmt.Errorf("wire: %s child %s names call %q, which its parent %s never made (its tool calls so far: %s); name the id of the parent's tool call that creates the child", mode, s.name+"/"+callID, callID, s.name, list)
}

// openCallNamed returns the one call named name among s's answers' calls
// whose result has not come back, nil when none is, and an error naming
// them when several are: the child must then name its call by id. The
// caller holds Handler.mu.
func (s *wireSession) openCallNamed(name string, mode session.Mode) (*madeCall, error) {
	var found *madeCall
	var ids []string
	for i := range s.made {
		c := &s.made[i]
		if c.name != name || c.answered {
			continue
		}
		found = c
		ids = append(ids, c.id)
	}
	if len(ids) > 1 {
		return nil, fmt.Errorf("wire: %s child of %s names call %q, the name of %d of its parent's open calls (%s): name the id of the call that creates the child", mode, s.name, name, len(ids), strings.Join(ids, ", "))
	}
	return found, nil
}

// madeCall returns the latest tool call with id that s's answers made, or
// nil. The caller holds Handler.mu.
func (s *wireSession) madeCall(id string) *madeCall {
	for i := len(s.made) - 1; i >= 0; i-- {
		if s.made[i].id == id {
			return &s.made[i]
		}
	}
	return nil
}
