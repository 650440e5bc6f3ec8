package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
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
	var buf [512]byte // resultResponse of most results, without an allocation
	if !isSet(raw) || bytes.Equal(raw, appendResultResponse(buf[:0], *result)) {
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

// resultExtras are the members of a functionResponse beside its response
// that a tool result's meta holds, in name order: what a response to a
// non-blocking function says of its call.
var resultExtras = [...]string{"scheduling", "willContinue"}

// resultMeta returns the meta of the tool result fr is:
// {"gemini": {"scheduling", "willContinue"}} with those of its members
// that are set, each in canonical JSON, or nil when none is. Recorded,
// another value is a difference of the tool result (and of its message's
// digest), and a live model of this API gets them back (toContents).
func resultMeta(fr *FunctionResponse) (json.RawMessage, error) {
	vals := [len(resultExtras)]json.RawMessage{fr.Scheduling, fr.WillContinue}
	var b []byte
	for i, v := range vals {
		if !isSet(v) {
			continue
		}
		if b == nil {
			b = append(b, `{"`+API+`":{`...)
		} else {
			b = append(b, ',')
		}
		b = append(jsonscan.AppendStdString(b, resultExtras[i]), ':')
		var err error
		if b, err = jsonscan.AppendCanonical(b, v); err != nil {
			return nil, fmt.Errorf("functionResponse.%s: %w", resultExtras[i], err)
		}
	}
	if b == nil {
		return nil, nil
	}
	return append(b, "}}"...), nil
}

// setResultExtras sets on fr the members of a functionResponse that meta,
// a tool result's (resultMeta), holds for this API.
func setResultExtras(fr *FunctionResponse, meta json.RawMessage) {
	if len(meta) == 0 {
		return
	}
	var m map[string]struct {
		Scheduling   json.RawMessage `json:"scheduling"`
		WillContinue json.RawMessage `json:"willContinue"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return
	}
	if e, ok := m[API]; ok {
		fr.Scheduling, fr.WillContinue = e.Scheduling, e.WillContinue
	}
}
