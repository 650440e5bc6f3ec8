package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzDecodeMCP feeds arbitrary bodies to decodeMCP, as an agent POSTs
// them to serve's MCP endpoint, and answers each with mcpRefuse, as serve
// answers a request it refuses. Nothing may panic. A message decodeMCP
// accepts is JSON-RPC 2.0 with no id or one valid JSON value; the refusal
// of a message, accepted or not, is one JSON-RPC 2.0 error object saying
// "agentsnap serve: ..." with code -32600, whose id is the request's
// (null when there is none), so a client matches it to its request. To
// fuzz:
//
//	go test -run '^$' -fuzz '^FuzzDecodeMCP$' -fuzztime 60s ./cmd/agentsnap
func FuzzDecodeMCP(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"city":"Oslo"}}}`,
		`{"jsonrpc":"2.0","id":"a\u00e9","method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.50,"result":{}}`,
		`{"jsonrpc":"2.0","id":{"x":[1]},"method":"m"}`, `{"jsonrpc":"1.0","id":1}`, `{"id":1}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, ` [`, `{"jsonrpc":"2.0","id":1,"jsonrpc":"2.0"}`,
		`{"jsonrpc":2}`, `null`, `{}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, err := decodeMCP(body)
		var id json.RawMessage
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("decodeMCP(%q): an empty error", body)
			}
		} else {
			if msg.JSONRPC != "2.0" || (msg.ID != nil && !json.Valid(msg.ID)) {
				t.Fatalf("decodeMCP(%q) accepted %+v", body, msg)
			}
			id = msg.ID
		}
		w := httptest.NewRecorder()
		mcpRefuse(w, http.StatusBadRequest, id, "refused")
		var out struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("the refusal of %q is no JSON: %v\n%s", body, err, w.Body.Bytes())
		}
		want := []byte("null")
		if id != nil {
			var c bytes.Buffer
			if err := json.Compact(&c, id); err != nil {
				t.Fatal(err)
			}
			want = c.Bytes()
		}
		if out.JSONRPC != "2.0" || !bytes.Equal(out.ID, want) || out.Error.Code != -32600 || !strings.HasPrefix(out.Error.Message, "agentsnap serve: ") {
			t.Fatalf("the refusal of %q is not a JSON-RPC error for id %s: %s", body, want, w.Body.Bytes())
		}
	})
}
