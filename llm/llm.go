package llm

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/agentsnap/agentsnap/session"
)

// Chunk is one unit of a model stream; see [session.Chunk].
type Chunk = session.Chunk

// Message is one conversation message; see [session.Message].
type Message = session.Message

// SessionRef identifies the session that makes a model call and its lineage.
type SessionRef struct {
	ID           string
	ParentID     string       // "" for a root session
	ParentCallID string       // the parent's tool call that created this session
	Mode         session.Mode // spawn or fork; "" for a root session
	Depth        int          // delegation depth: 0 for the root
}

// IsRoot reports whether the session has no parent.
func (s SessionRef) IsRoot() bool { return s.ParentID == "" }

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON Schema object
}

// Request is one model call.
type Request struct {
	Session  SessionRef
	Turn     int // 1-based turn of the session this call serves
	Step     int // 1-based step within the turn
	Attempt  int // 1-based; >1 when the runtime retries the step
	Model    string
	System   string
	Messages []Message
	Tools    []ToolSpec
	// API names the model API the call came in, for a call the wire layer
	// decoded from an agent's HTTP request ("openai-chat",
	// "anthropic-messages", …); "" for a runtime's own call. Settings is
	// that request's settings as sent (see session.RequestHeaderData): a
	// live driver of the same API sends them on as they are.
	API      string
	Settings json.RawMessage
	// Forward is what that request carries beyond agentsnap's terms that
	// a live driver of the same API sends on as the agent sent it, of a
	// type the API's package defines (llm/anthropic.Forward: the prompt
	// cache's breakpoints, the anthropic-beta headers); nil for most
	// calls. It is neither recorded nor compared (the API's package says
	// why).
	Forward any
}

// Driver streams model responses.
//
// Stream starts one model call. A non-nil error means the call could not
// start at all (no route, no script, bad configuration); the runtime ends
// the turn with that error. Once started, failures are reported in the
// stream as an error finish chunk, so they are recorded like any other
// outcome. The returned sequence may be iterated once. Drivers must be safe
// for concurrent use: subagents call Stream from their own goroutines.
type Driver interface {
	Stream(ctx context.Context, req *Request) (iter.Seq[Chunk], error)
}

// DriverFunc adapts a function to the Driver interface.
type DriverFunc func(ctx context.Context, req *Request) (iter.Seq[Chunk], error)

// Stream calls f.
func (f DriverFunc) Stream(ctx context.Context, req *Request) (iter.Seq[Chunk], error) {
	return f(ctx, req)
}

// Failure codes for streams that end abnormally.
const (
	// CodeNoFinish is the code of the error finish [Normalize] adds to a
	// stream that ended without a finish chunk.
	CodeNoFinish = "NO_FINISH"
	// CodeAborted is available to drivers that report a cancelled call as
	// an error; [Normalize] itself ends a cancelled stream with a finish of
	// kind aborted, which carries no failure.
	CodeAborted = "ABORTED"
)

// Normalize wraps a stream so that it ends with exactly one finish chunk:
// chunks after the first finish are dropped, and a stream that ends without
// one gets an error finish (or an aborted finish when ctx is done), so a
// recorded log always closes every model call. A consumer that stops early
// gets nothing more, not even the added finish.
func Normalize(ctx context.Context, s iter.Seq[Chunk]) iter.Seq[Chunk] {
	return func(yield func(Chunk) bool) {
		// One variable the loop sets, not two: each the loop's body sets is
		// an allocation of its own.
		ended := false // by a finish, or by the consumer
		for c := range s {
			if !yield(c) || c.IsFinish() {
				ended = true
				break
			}
		}
		if !ended {
			yield(MissingFinish(ctx))
		}
	}
}

// MissingFinish is the finish Normalize adds to a stream that ended without
// one: aborted when ctx is done, else an error finish of code CodeNoFinish.
func MissingFinish(ctx context.Context) Chunk {
	if ctx.Err() != nil {
		return session.Finish(session.FinishAborted)
	}
	return session.ErrorFinish(CodeNoFinish, "the model stream ended without a finish chunk")
}
