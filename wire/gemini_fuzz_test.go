package wire_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// FuzzGeminiRequest checks that the Gemini format reads any request
// without panicking, and that what it reads is what the log can hold:
// known roles, one result per tool message, arguments and parameters
// that are JSON, settings that are a canonical JSON object, the model from
// the URL, the same every time. Its seeds (testdata/fuzz) run in CI.
func FuzzGeminiRequest(f *testing.F) {
	f.Add("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{}}`))
	f.Fuzz(func(t *testing.T, target string, body []byte) {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		if u, err := r.URL.Parse(target); err == nil {
			r.URL = u
		}
		if !wire.Gemini.Match(r) {
			return
		}
		req, err := wire.Gemini.DecodeRequest(r, body)
		if err != nil {
			return
		}
		again, err := wire.Gemini.DecodeRequest(r, body)
		if err != nil || !reflect.DeepEqual(req, again) {
			t.Fatalf("a second read differs: %v\n%+v\n%+v", err, req, again)
		}
		if req.Model == "" {
			t.Fatalf("no model from %q", r.URL.Path)
		}
		for i, m := range req.Messages {
			checkMessage(t, i, m)
		}
		for _, tool := range req.Tools {
			if tool.Parameters != nil && !json.Valid(tool.Parameters) {
				t.Fatalf("tool %q: parameters %q are not JSON", tool.Name, tool.Parameters)
			}
		}
		if req.Settings != nil {
			var set map[string]json.RawMessage
			if err := json.Unmarshal(req.Settings, &set); err != nil || len(set) == 0 {
				t.Fatalf("settings %q are not a JSON object with members: %v", req.Settings, err)
			}
			if c := canonicalText(req.Settings); c != string(req.Settings) {
				t.Fatalf("settings %s are not canonical: %s", req.Settings, c)
			}
		}
	})
}

// canonicalText is raw with object members in name order, compact.
func canonicalText(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return ""
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func checkMessage(t *testing.T, i int, m session.Message) {
	t.Helper()
	switch m.Role {
	case session.RoleUser, session.RoleAssistant:
	case session.RoleTool:
		if len(m.Content) != 1 || m.Content[0].Type != session.PartToolResult {
			t.Fatalf("message %d: a tool message holds %+v, want one tool result", i, m.Content)
		}
	default:
		t.Fatalf("message %d: role %q", i, m.Role)
	}
	for _, p := range m.Content {
		if p.Meta != nil && !json.Valid(p.Meta) {
			t.Fatalf("message %d: meta %q is not JSON", i, p.Meta)
		}
		if p.Type == session.PartToolCall {
			var args map[string]any
			if err := json.Unmarshal([]byte(p.Arguments), &args); err != nil || args == nil {
				t.Fatalf("message %d: tool call %s arguments %q are not a JSON object", i, p.ID, p.Arguments)
			}
		}
	}
}
