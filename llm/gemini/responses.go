package gemini

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"

	"github.com/agentsnap/agentsnap/session"
)

// Responses is an agent's own functionResponse.response for each tool
// result of its request whose response says other than agentsnap's
// {"output": text} (or {"error": text}) for it — the Vercel AI SDK's
// {"name", "content"}, an output that is an object, members beside the
// output — by where the result stands: the log holds the result's text,
// so a live driver of this API sends this object for it, and the model
// gets what the agent sent. A Responses is not changed once a request
// holds it (merge copies).
type Responses map[string]json.RawMessage

// responseKey is the key of the response of the tool result of call id
// in message msg of a request's conversation.
func responseKey(msg int, id string) string {
	return strconv.Itoa(msg) + "@" + id
}

// keep returns r with raw, the agent's response for result (message msg
// of the conversation), when raw says other than resultResponse does; r
// itself when it is not nil, as conversation keeps its own. raw is copied:
// the body it was read from may be reused.
func (r Responses) keep(msg int, result *session.Part, raw json.RawMessage) Responses {
	raw = bytes.TrimSpace(raw)
	if !isSet(raw) || bytes.Equal(raw, resultResponse(*result)) {
		return r
	}
	if r == nil {
		r = Responses{}
	}
	r[responseKey(msg, result.ToolCallID)] = bytes.Clone(raw)
	return r
}

// at returns the agent's response for the tool result of call id in
// message msg, if it kept one.
func (r Responses) at(msg int, id string) (json.RawMessage, bool) {
	raw, ok := r[responseKey(msg, id)]
	return raw, ok
}

// mergeResponses returns the responses of before and added (added's
// win): before itself when added is empty, else a new Responses.
func mergeResponses(before, added Responses) Responses {
	if len(added) == 0 {
		return before
	}
	out := maps.Clone(before)
	if out == nil {
		out = Responses{}
	}
	maps.Copy(out, added)
	return out
}
