package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// askedItem is what an output item of another type than a function
// call, a message or reasoning says about what it asks of the client:
// read apart from Item, whose members some of these items give other
// kinds (a tool search's arguments are an object).
type askedItem struct {
	Type        string `json:"type"`
	CallID      string `json:"call_id"`
	Name        string `json:"name"`
	ServerLabel string `json:"server_label"` // mcp_approval_request's
	Execution   string `json:"execution"`    // tool_search_call's: "server" or "client"
}

// clientCall reports whether output item it asks the client to act: run
// a tool (a custom tool, the computer, a shell, apply_patch, and any
// *_call type this package does not know), approve an MCP call, or search
// its tools. A session log records function calls only. Server-side calls
// (web, file and tool search, code interpreter, image generation, MCP
// calls) are done by the time the answer holds them.
func clientCall(it *askedItem) bool {
	switch it.Type {
	case ItemFunctionCall, "web_search_call", "file_search_call", "code_interpreter_call",
		"image_generation_call", "mcp_call":
		return false
	case "tool_search_call":
		return it.Execution == "client"
	case "mcp_approval_request":
		return true
	}
	return strings.HasSuffix(it.Type, "_call")
}

// refuseItems returns the error finish of event ev (of type typ) whose
// items hold one the client must act on, or nil: an output item added or
// done, or the output of a terminal response. Read as nothing, such an
// item would let the recording go on as if the model had called no tool.
func (d *decoder) refuseItems(typ string, ev *event) *session.Chunk {
	var items []outputItem
	switch {
	case (typ == EventItemAdded || typ == EventItemDone) && ev.Item != nil:
		items = []outputItem{*ev.Item}
	case (typ == EventCompleted || typ == EventIncomplete) && ev.Response != nil:
		items = ev.Response.Output
	}
	for i := range items {
		if fin := d.refuse(&items[i].asked); fin != nil {
			return fin
		}
	}
	return nil
}

// refuse returns the error finish of item it when it asks the client to
// act, or nil.
func (d *decoder) refuse(it *askedItem) *session.Chunk {
	if it.Type == "" || !clientCall(it) {
		return nil
	}
	fin := live.UnrecordableFinish(d.scrub, fmt.Sprintf("%s: stream event %d: %s", d.scrub.Prefix(), d.events, calledWhat(it)),
		whatToDo(it.Type))
	return &fin
}

// unreadable is the error finish of event data (of type typ) that
// encoding/json could not read whole (err). An item in it the client must
// act on is refused before the decode error is named: the item is what the
// user must change, and a server that mended the event would send it
// again.
func (d *decoder) unreadable(typ string, data []byte, err error) *session.Chunk {
	for _, it := range askedIn(typ, data) {
		if fin := d.refuse(&it); fin != nil {
			return fin
		}
	}
	return d.badStream(fmt.Sprintf("is not a %s event (%v)", typ, err), data)
}

// askedIn reads the items of event data (of type typ) as refuseItems
// does, each apart and only for what it asks of the client: for an event
// encoding/json could not read whole, as when another item or member is
// of the wrong kind (a function call's arguments an object). What is not
// of the kind askedItem expects is left empty.
func askedIn(typ string, data []byte) []askedItem {
	var ev struct {
		Item     json.RawMessage `json:"item"`
		Response struct {
			Output []json.RawMessage `json:"output"`
		} `json:"response"`
	}
	_ = json.Unmarshal(data, &ev) // Event read data as an object already
	var raws []json.RawMessage
	switch typ {
	case EventItemAdded, EventItemDone:
		raws = []json.RawMessage{ev.Item}
	case EventCompleted, EventIncomplete:
		raws = ev.Response.Output
	}
	var out []askedItem
	for _, raw := range raws {
		var it askedItem
		if itemTyp, ok := itemType(raw); ok && itemTyp != "" {
			_ = json.Unmarshal(raw, &it)
			it.Type = itemTyp
			out = append(out, it)
		}
	}
	return out
}

// calledWhat says what the model asked of the client with item it.
func calledWhat(it *askedItem) string {
	kind := fmt.Sprintf("output item of type %q", it.Type)
	if it.CallID != "" {
		kind = fmt.Sprintf("call %q, %s", live.Snippet([]byte(it.CallID)), kind)
	}
	name := fmt.Sprintf("%q", live.Snippet([]byte(it.Name)))
	switch it.Type {
	case "mcp_approval_request":
		return fmt.Sprintf("the model asked the client to approve a call of %s on MCP server %q (%s)",
			name, live.Snippet([]byte(it.ServerLabel)), kind)
	case "tool_search_call":
		return fmt.Sprintf("the model asked the client to search its tools (%s, execution \"client\")", kind)
	case "custom_tool_call":
		return fmt.Sprintf("the model called %s, a custom tool (%s)", name, kind)
	}
	switch {
	case it.Name != "":
		return fmt.Sprintf("the model called %s, a tool the client runs (%s)", name, kind)
	case it.Type == "computer_call" || it.Type == "local_shell_call" || it.Type == "shell_call" || it.Type == "apply_patch_call":
		return fmt.Sprintf("the model called the built-in %s tool, which the client runs (%s)", strings.TrimSuffix(it.Type, "_call"), kind)
	}
	// An unknown type is named quoted only: it is the server's text.
	return fmt.Sprintf("the model called a tool the client runs (%s)", kind)
}

// whatToDo says how an agent gets a recordable call instead.
func whatToDo(typ string) string {
	switch typ {
	case "mcp_approval_request":
		return `set require_approval to "never" on that MCP tool, or give the agent the tool as a function tool`
	case "tool_search_call":
		return "give the agent its tools as function tools, without a client-run tool search"
	}
	return "give the agent that tool as a function tool"
}
