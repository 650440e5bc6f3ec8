package session

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Event types of recorded tools: results a replay serves instead of
// running the tool again.
const (
	// TypeToolRecorded is the result a recorded tool returned
	// (journal.Journal.Tool), written right before the tool/result of its
	// call; see ToolRecordedData.
	TypeToolRecorded = "tool/recorded"
	// TypeMCPCall is one request a session made to an MCP server and the
	// server's answer; see MCPCallData.
	TypeMCPCall = "mcp/call"
	// TypeCountTokens is one token count a session asked its model API
	// for (Anthropic's count_tokens, Gemini's countTokens) and the
	// answer; see CountTokensData.
	TypeCountTokens = "count/tokens"
)

// ToolRecordedData is the payload of tool/recorded: what a recorded tool
// was called with and what it returned. A replay returns Result to the
// session's call with the same CallID (the n-th such call gets the n-th
// record of its own events) without running the tool, and refuses a call
// whose Name or Arguments differ.
type ToolRecordedData struct {
	Turn      int        `json:"turn"`
	Step      int        `json:"step"`
	CallID    string     `json:"callId"`
	Name      string     `json:"name"`
	Arguments string     `json:"arguments"` // as passed to the tool
	Result    ToolOutput `json:"result"`
}

// ToolOutput is what a tool returns: the text the model gets, and whether
// the tool failed.
type ToolOutput struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError,omitempty"`
}

// MCPCallData is the payload of mcp/call: one JSON-RPC request a session
// sent to the MCP server named Server, and its answer — Result, or Error
// for an error response. A replay answers the session's request of the
// same Key (the n-th such request gets the n-th record of its own events)
// with no server.
type MCPCallData struct {
	Turn   int             `json:"turn"`
	Step   int             `json:"step"`
	Server string          `json:"server"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *MCPError       `json:"error,omitempty"`
}

// CountTokensData is the payload of count/tokens: one request a session
// made to its model API's token counting endpoint — not a model call — and
// the count it got. Digest is the request's (llm.CountDigest): its model,
// system prompt, tools, conversation and settings. A replay answers the
// session's request of the same Digest (the n-th such request gets the
// n-th record of its own events) with no model.
type CountTokensData struct {
	Turn   int    `json:"turn"`
	Step   int    `json:"step"`
	API    string `json:"api"`
	Model  string `json:"model,omitempty"`
	Digest string `json:"digest"`
	// InputTokens is the answer: Anthropic's input_tokens, Gemini's
	// totalTokens.
	InputTokens int64 `json:"inputTokens"`
	// Failure, when set, is why the count failed while recording (the
	// live endpoint's HTTP error, or no answer): the agent got that error
	// instead of a count, and a replay answers the request with it again
	// (InputTokens is 0), so an agent that counts again after a 5xx, as
	// an SDK retries, replays as it ran.
	Failure *Failure `json:"failure,omitempty"`
}

// Answer says what the count answered, as messages quote it: "N tokens",
// or the failure the live endpoint answered while recording ("failed
// with HTTP 503 SERVER") — not the 0 tokens such a record holds.
func (d *CountTokensData) Answer() string {
	if f := d.Failure; f != nil {
		if f.Status > 0 {
			return fmt.Sprintf("failed with HTTP %d %s", f.Status, f.Code)
		}
		return "failed: " + f.Code
	}
	return fmt.Sprintf("%d tokens", d.InputTokens)
}

// MCPError is a JSON-RPC error response.
type MCPError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Key is what a replay matches an MCP request by: the server, the method
// and what it asks (Asked). An initialize request is matched by server
// and method alone: the client sends its own name and version, the server
// answers what it is.
func (d *MCPCallData) Key() string {
	if d.Method == "initialize" {
		return d.Server + "\x00" + d.Method
	}
	return d.Server + "\x00" + d.Method + "\x00" + d.Asked()
}

// Asked returns the request's params in canonical form (CanonicalJSON)
// without their _meta member, which says who asks and how (the client's
// name and capabilities, a progress token), not what.
func (d *MCPCallData) Asked() string {
	return string(CanonicalJSON(WithoutMeta(d.Params)))
}

// WithoutMeta returns a JSON object without its _meta member; v itself
// when it is no object or has none.
func WithoutMeta(v json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil || m == nil {
		return v
	}
	if _, ok := m["_meta"]; !ok {
		return v
	}
	delete(m, "_meta")
	b, err := json.Marshal(m)
	if err != nil {
		return v
	}
	return b
}

// CanonicalJSON returns v with object members in name order and no
// spaces, numbers as written (jsonscan.AppendCanonical, encoding/json's
// spelling); v itself when it is not one valid JSON value (data after the
// value included), nil when it is blank.
func CanonicalJSON(v json.RawMessage) []byte {
	if len(bytes.TrimSpace(v)) == 0 {
		return nil
	}
	out, err := jsonscan.AppendCanonical(nil, v)
	if err != nil {
		return v
	}
	return out
}
