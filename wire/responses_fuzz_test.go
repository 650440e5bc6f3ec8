package wire_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/llm"
	rs "github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// FuzzResponsesRequest checks that no request body panics the Responses
// format: a body decodes to a conversation of user, assistant and tool
// messages (one result each) and settings that are a JSON object, or to
// an error; an answer to it streams; and a second request, whose RESP and
// ITEM name what the first was served, decodes against that chain the
// same way. Its seeds are in testdata/fuzz/FuzzResponsesRequest.
func FuzzResponsesRequest(f *testing.F) {
	answer := session.Message{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartReasoning, Text: "r"}, session.TextPart("t"), toolCall("call_1", "lookup", `{"key":"release"}`),
	}}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		format := wire.Responses()
		req := decodeChecked(t, format, first)
		if req == nil {
			return
		}
		req.Key = "root:1:1:1"
		rec := httptest.NewRecorder()
		if err := format.WriteStream(rec, req, slices.Values(llm.StreamMessage(answer, nil, ""))); err != nil {
			t.Fatalf("writing the answer: %v", err)
		}
		var resp string
		var items []string
		for frame := range bytes.SplitSeq(rec.Body.Bytes(), []byte("\n\n")) {
			var ev rs.Event
			if _, data, ok := bytes.Cut(frame, []byte("data: ")); ok && json.Unmarshal(data, &ev) == nil && ev.Type == rs.EventCompleted {
				resp = ev.Response.ID
				for _, it := range ev.Response.Output {
					items = append(items, it.ID)
				}
			}
		}
		if resp == "" || len(items) != 3 {
			t.Fatalf("the answer has no response.completed with its 3 items:\n%s", rec.Body.String())
		}
		second = bytes.ReplaceAll(second, []byte("RESP"), []byte(resp))
		second = bytes.ReplaceAll(second, []byte("ITEM"), []byte(items[1]))
		decodeChecked(t, format, second)
	})
}

// decodeChecked decodes body with f and checks what it made, returning nil
// for a body f refuses.
func decodeChecked(t *testing.T, f wire.Format, body []byte) *wire.Request {
	t.Helper()
	req, err := f.DecodeRequest(nil, body)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("an error without a message")
		}
		return nil
	}
	for i, m := range req.Messages {
		switch m.Role {
		case session.RoleUser, session.RoleAssistant:
		case session.RoleTool:
			if len(m.Content) != 1 || m.Content[0].Type != session.PartToolResult {
				t.Fatalf("message %d: a tool message of %d parts", i, len(m.Content))
			}
		default:
			t.Fatalf("message %d: role %q", i, m.Role)
		}
	}
	if req.Settings != nil {
		var set map[string]json.RawMessage
		if json.Unmarshal(req.Settings, &set) != nil {
			t.Fatalf("settings %s are not a JSON object", req.Settings)
		}
	}
	return req
}
