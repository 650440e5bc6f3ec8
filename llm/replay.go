package llm

import (
	"context"
	"errors"

	"github.com/agentsnap/agentsnap/session"
)

// ToolReplay serves recorded tools in a replay: a tool call or an MCP
// request gets the answer the recording stored in the calling session's
// own log, and the tool or the server is not asked. The replay driver
// (fakellm.Driver) is one; while recording there is none, and the tools
// run. An only-changed recording (recorder.Options.OnlyChanged) is
// another: it serves the sessions that still replay their recorded model
// calls, and answers ErrRunTool for the others, whose tools run.
// Implementations are safe for concurrent use.
type ToolReplay interface {
	// ReplayTool returns the recorded result of the session's tool call
	// call.CallID (call.Result is ignored). An error means there is none
	// to serve: the call was never recorded, or it was recorded with
	// other arguments (drift) — or, wrapping ErrRunTool, the tool is to
	// run and its output to be recorded.
	ReplayTool(ctx context.Context, s SessionRef, call session.ToolRecordedData) (session.ToolOutput, error)
	// ReplayMCP returns the recorded answer to the session's MCP request
	// (call.Result and call.Error are ignored): the record, with its
	// Result or Error. An error means the request was never recorded —
	// or, wrapping ErrRunTool, the server is to be asked and its answer
	// recorded.
	ReplayMCP(ctx context.Context, s SessionRef, call session.MCPCallData) (session.MCPCallData, error)
}

// ErrRunTool is what a ToolReplay answers (wrapped) for a call it serves
// no recorded answer to because the call is recorded anew: in an
// only-changed recording, the session went to the model, so its tools
// run and its MCP requests go to the server, as in any recording. The
// caller then does what it does while recording (Env.ToolReplay nil):
// runs the tool and records its output.
var ErrRunTool = errors.New("run the tool: the session is recorded anew")
