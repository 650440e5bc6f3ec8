package wire_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// FuzzAnthropicRequest checks that no body makes the Messages format's
// request decoder panic, and that what it accepts is a call the handler
// can record: one tool-result part per tool message, settings in one
// canonical spelling without the members the call holds itself (the
// tools only when they are a setting, Call.ToolsSetting), and a
// conversation that encodes back to the API.
func FuzzAnthropicRequest(f *testing.F) {
	f.Add([]byte(`{"model":"m","max_tokens":1024,"system":"s","messages":[{"role":"user","content":"hi"}],"stream":true}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/v1/messages", bytes.NewReader(body))
		req, err := wire.AnthropicMessages.DecodeRequest(r, body)
		if err != nil {
			if req != nil {
				t.Fatalf("a request with the error %v", err)
			}
			return
		}
		for i, m := range req.Messages {
			results := 0
			for _, p := range m.Content {
				if p.Type == session.PartToolResult {
					results++
				}
			}
			if (m.Role == session.RoleTool) != (results == 1) || (m.Role != session.RoleTool && results > 0) {
				t.Fatalf("message %d: role %s with %d tool results", i, m.Role, results)
			}
		}
		call, err := anthropic.DecodeRequest(body)
		if err != nil {
			t.Fatalf("the wire reads a body anthropic.DecodeRequest refuses: %v", err)
		}
		if req.Settings == nil {
			checkToolsSetting(t, nil, call.ToolsSetting)
		} else {
			var set map[string]json.RawMessage
			if err := json.Unmarshal(req.Settings, &set); err != nil {
				t.Fatalf("settings %s: %v", req.Settings, err)
			}
			for _, k := range anthropic.Known {
				if _, ok := set[k]; ok && k != "tools" {
					t.Fatalf("settings %s hold %q", req.Settings, k)
				}
			}
			checkToolsSetting(t, set, call.ToolsSetting)
			// The settings alone, as a request, read back the same.
			again, _ := json.Marshal(set)
			if r2, err := wire.AnthropicMessages.DecodeRequest(r, again); err != nil || !bytes.Equal(r2.Settings, req.Settings) {
				t.Fatalf("settings %s are not in one spelling: %s (%v)", req.Settings, r2.Settings, err)
			}
		}
		msgs, err := anthropic.EncodeMessages(req.Messages)
		if err != nil && (req.Forward == nil || req.Forward.(*anthropic.Forward).Media == nil) {
			t.Fatalf("the conversation does not encode back: %v", err)
		}
		if b, err := json.Marshal(msgs); err != nil || !json.Valid(b) {
			t.Fatalf("the conversation does not encode back: %v", err)
		}
	})
}
