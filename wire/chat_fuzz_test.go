package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
	"github.com/agentsnap/agentsnap/wire"
)

// FuzzChatRequest checks that no body makes the Chat Completions request
// decoder panic, and that what it accepts is a call the handler can
// record: one tool result per tool message, settings in one canonical
// spelling without the members the call holds itself — the tools only
// when they say more than its tool specs (Call.ToolsSetting).
func FuzzChatRequest(f *testing.F) {
	f.Add([]byte(`{"model":"m","stream":true,"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"model":"m","temperature":0.2,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"v"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`))
	f.Add([]byte(`{"messages":[{"role":"wizard"}]}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body))
		req, err := wire.ChatCompletions.DecodeRequest(r, body)
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
			if (m.Role == session.RoleTool) != (results == 1) {
				t.Fatalf("message %d: role %s with %d tool results", i, m.Role, results)
			}
		}
		call, err := openai.DecodeRequest(body)
		if err != nil {
			t.Fatalf("the wire reads a body openai.DecodeRequest refuses: %v", err)
		}
		if req.Settings == nil {
			checkToolsSetting(t, nil, call.ToolsSetting)
			return
		}
		var set map[string]json.RawMessage
		if err := json.Unmarshal(req.Settings, &set); err != nil {
			t.Fatalf("settings %s: %v", req.Settings, err)
		}
		for _, k := range []string{"model", "messages", "stream", "stream_options"} {
			if _, ok := set[k]; ok {
				t.Fatalf("settings %s hold %q", req.Settings, k)
			}
		}
		checkToolsSetting(t, set, call.ToolsSetting)
		again, _ := json.Marshal(set)
		if r2, err := wire.ChatCompletions.DecodeRequest(r, again); err != nil || !bytes.Equal(r2.Settings, req.Settings) {
			t.Fatalf("settings %s are not in one spelling: %v", req.Settings, err)
		}
	})
}

// checkToolsSetting fails unless the settings hold "tools" exactly when
// the decoder keeps the tools as a setting, and then as it keeps them.
func checkToolsSetting(t *testing.T, set map[string]json.RawMessage, want json.RawMessage) {
	t.Helper()
	got, ok := set["tools"]
	if ok != (want != nil) {
		t.Fatalf("settings hold tools %s; the decoder's tools setting is %s", got, want)
	}
	var a, b any
	if ok && (json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !reflect.DeepEqual(a, b)) {
		t.Fatalf("settings hold tools %s; the decoder's tools setting is %s", got, want)
	}
}

// fuzzDriver answers a conversation that ends in a user message with a
// tool call the next request may answer, anything else with text.
var fuzzDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == session.RoleUser {
		return calls(toolCall("call_1", "lookup", `{"key":"release"}`)), nil
	}
	return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("done")}}, nil, "")), nil
})

// FuzzHandler sends up to four calls (the input split at newlines: a
// header line "SESSION PARENT CALL MODE" — empty fields omitted — then the
// body) to one handler, the way agents in other processes do, and checks
// that no sequence makes it panic or hang: every answer is a 200 or a 4xx
// with a JSON error the SDKs show, Close returns, and the logs it kept
// render.
func FuzzHandler(f *testing.F) {
	user := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	result := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"v"}]}`
	f.Add([]byte("root\n" + user + "\nroot\n" + result))
	f.Add([]byte("root\n" + user + "\nc root call_1 fork\n" + user + "\nc root call_1 spawn\n" + result))
	f.Add([]byte("x y z w\n{}\n\n" + user))
	f.Add([]byte("root\n" + result + "\nroot\n" + user))
	f.Fuzz(func(t *testing.T, in []byte) {
		store := memory.New()
		h, err := wire.NewHandler(wire.Config{Driver: fuzzDriver, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(in), "\n")
		for i := 0; i+1 < len(lines) && i < 8; i += 2 {
			r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(lines[i+1]))
			r.Header.Set("Content-Type", "application/json")
			for j, v := range strings.Fields(lines[i]) {
				if j < 4 {
					r.Header.Set([]string{wire.HeaderSession, wire.HeaderParent, wire.HeaderCall, wire.HeaderMode}[j], v)
				}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			res := w.Result()
			b, _ := io.ReadAll(res.Body)
			switch {
			case res.StatusCode == http.StatusOK:
			case res.StatusCode >= 400 && res.StatusCode < 500:
				var e struct {
					Error struct{ Message string } `json:"error"`
				}
				if json.Unmarshal(b, &e) != nil || e.Error.Message == "" {
					t.Fatalf("call %d: %d without a JSON error message: %q", i/2+1, res.StatusCode, b)
				}
			default:
				t.Fatalf("call %d: status %d: %q", i/2+1, res.StatusCode, b)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx) // an agent that stopped mid-turn is named, not hidden
		if ctx.Err() != nil {
			t.Fatal("Close did not return")
		}
		headers, err := store.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var logs []*session.Log
		for _, hd := range headers {
			l, err := store.Load(ctx, hd.ID)
			if err != nil {
				t.Fatalf("session %s does not load: %v", hd.ID, err)
			}
			logs = append(logs, l)
		}
		if _, err := transcript.Render(logs); err != nil && len(logs) > 0 {
			t.Fatalf("the logs do not render: %v", err)
		}
	})
}
