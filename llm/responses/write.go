package responses

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// Answer is what the writers need of the call they answer.
type Answer struct {
	// Key names the call, the same in a recording and every replay
	// (wire.Request.Key): the response's id and its items' ids are
	// derived from it, so an agent that sends them back names the same
	// ones in every run.
	Key          string
	Model        string
	Instructions string
	Previous     string // previous_response_id, echoed
	Tools        []llm.ToolSpec
}

// Result is what a writer answered, to keep in a Served: the response's
// id, its output as recorded (the message its chunks make, the log's
// assistant/message) and the id each part of it was served with. Kept is
// false for an answer that failed or was cut: no later request can name
// it.
type Result struct {
	ID      string
	Output  session.Message
	ItemIDs []string // per part of Output
	Kept    bool
}

// ResponseID is the id of the response to the call key.
func ResponseID(key string) string { return derivedID("resp_", key, 0, false) }

// itemID is the id of output item n of the response to the call key, of
// the kind prefix (msg, fc, rs).
func itemID(prefix, key string, n int) string { return derivedID(prefix, key, n, true) }

// derivedID is prefix ("_" after an item's) then the digest of key, or of
// key and item n: hex of the first half of
// sha256("agentsnap openai-responses\x00" + key [+ "\x00" + n]). It is
// built in stack buffers, in one allocation: a stream derives an id per
// item.
func derivedID(prefix, key string, n int, item bool) string {
	var in [128]byte
	b := append(in[:0], "agentsnap "+API+"\x00"...)
	b = append(b, key...)
	if item {
		b = strconv.AppendInt(append(b, 0), int64(n), 10)
	}
	sum := sha256.Sum256(b)
	var out [48]byte
	o := append(out[:0], prefix...)
	if item {
		o = append(o, '_')
	}
	return string(hex.AppendEncode(o, sum[:16]))
}

// newResponse is the response object of a, with no output yet.
func newResponse(a Answer, status string) *Response {
	r := &Response{ID: ResponseID(a.Key), Object: "response", Status: status, Model: a.Model, Output: []Item{}, Tools: []Tool{}}
	if a.Instructions != "" {
		r.Instructions = ptr(a.Instructions)
	}
	if a.Previous != "" {
		r.PreviousResponseID = ptr(a.Previous)
	}
	for _, t := range a.Tools {
		r.Tools = append(r.Tools, Tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return r
}

// usageOf is the usage object of u; zeros when the call reported none
// (clients read it off every finished response).
func usageOf(u *session.Usage) *Usage {
	out := &Usage{InputTokensDetails: &InputDetails{CachedTokens: ptr(0)}, OutputTokensDetails: &OutputDetail{ReasoningTokens: ptr(0)}}
	if u == nil {
		return out
	}
	out.InputTokens, out.OutputTokens, out.TotalTokens = u.InputTokens, u.OutputTokens, u.InputTokens+u.OutputTokens
	if u.CacheReadTokens != nil {
		out.InputTokensDetails.CachedTokens = ptr(*u.CacheReadTokens)
	}
	if u.ReasoningTokens != nil {
		out.OutputTokensDetails.ReasoningTokens = ptr(*u.ReasoningTokens)
	}
	return out
}

// finishStatus is the status and incomplete details of a response that
// finished so.
func finishStatus(kind string) (string, *Incomplete) {
	if kind == session.FinishMaxTokens {
		return StatusIncomplete, &Incomplete{Reason: "max_output_tokens"}
	}
	return StatusCompleted, nil
}

// WriteMessage writes a whole answer: the response object of msg, or, for
// a failed call, an error answer. An aborted call writes nothing (its
// client is gone).
func WriteMessage(w http.ResponseWriter, a Answer, msg session.Message, usage *session.Usage, finish *session.FinishReason) (Result, error) {
	kind := session.FinishStop
	if finish != nil {
		kind = finish.Kind
	}
	switch kind {
	case session.FinishAborted:
		return Result{}, nil
	case session.FinishError:
		status, code, text := live.ServedFailure(finish)
		WriteError(w, status, code, text)
		return Result{}, nil
	}
	r := newResponse(a, StatusCompleted)
	r.Status, r.IncompleteDetails = finishStatus(kind)
	r.Usage = usageOf(usage)
	res := Result{ID: r.ID, Output: session.Message{Role: session.RoleAssistant, Content: []session.Part{}}, Kept: true}
	for _, p := range msg.Content {
		it := newOutItem(p.Type)
		if it == nil {
			continue
		}
		it.text.WriteString(partText(p))
		it.callID, it.name, it.meta = p.ID, p.Name, ReadMeta(p.Meta)
		it.assign(a.Key, len(r.Output))
		r.Output = append(r.Output, it.doneItem())
		res.Output.Content = append(res.Output.Content, p)
		res.ItemIDs = append(res.ItemIDs, it.id)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return res, enc.Encode(r)
}

func partText(p session.Part) string {
	if p.Type == session.PartToolCall {
		return p.Arguments
	}
	return p.Text
}

// WriteError writes an error answer in the API's shape.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ErrorBody{Error: Error{Type: "agentsnap_error", Code: code, Message: message, Param: json.RawMessage("null")}})
}
