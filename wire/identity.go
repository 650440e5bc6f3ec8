package wire

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentsnap/agentsnap/session"
)

// Session identity reaches the handler explicitly, never guessed from
// timing or from what a request says: an in-process agent tags the context
// of its model calls (Spawn, Fork), an agent in another process sends
// headers. A call with neither is the root session's.
//
// Headers, all optional for the root:
//
//	Agentsnap-Session: an id of the agent's choosing, the same on every call of the session
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
