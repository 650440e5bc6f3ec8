package llm

import (
	"context"

	"github.com/agentsnap/agentsnap/session"
)

// ToolReplay serves recorded tools in a replay: a tool call or an MCP
// request gets the answer the recording stored in the calling session's
// own log, and the tool or the server is not asked. The replay driver
// (fakellm.Driver) is one; while recording there is none, and the tools
// run. Implementations are safe for concurrent use.
type ToolReplay interface {
	// ReplayTool returns the recorded result of the session's tool call
	// call.CallID (call.Result is ignored). An error means there is none
	// to serve: the call was never recorded, or it was recorded with
	// other arguments (drift).
	ReplayTool(ctx context.Context, s SessionRef, call session.ToolRecordedData) (session.ToolOutput, error)
	// ReplayMCP returns the recorded answer to the session's MCP request
	// (call.Result and call.Error are ignored): the record, with its
	// Result or Error. An error means the request was never recorded.
	ReplayMCP(ctx context.Context, s SessionRef, call session.MCPCallData) (session.MCPCallData, error)
}
