package session_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzMCPKey holds the key a replay matches an MCP request by (mcpsnap's
// and serve's recorded mcp/call events, read back from a log) to what it
// promises: the params in one canonical spelling without their _meta. A
// key is the same for its own canonical params (idempotent); for params
// that are one valid JSON value repeating no member, it is the same for
// the params spelled again by encoding/json (members reordered, spaces
// dropped, a number kept as written) and with a _meta member added; an
// initialize request's key ignores its params. None of it panics. To
// fuzz:
//
//	go test -run '^$' -fuzz '^FuzzMCPKey$' -fuzztime 60s ./session
func FuzzMCPKey(f *testing.F) {
	for _, s := range []string{
		`{"name":"lookup","arguments":{"city":"Oslo","days":3}}`,
		`{"arguments": {"days": 3.0, "city": "Oslo"}, "name": "lookup", "_meta": {"progressToken": 1}}`,
		`{"uri":"file:///a<b>&c"}`, `{"_meta":{}}`, `{"a":1,"a":2}`, `{"a":"\u00e9\ud83d\ude00"}`,
		`[1,{"b":2,"a":1}]`, `"x"`, `1e400`, `-0`, `null`, `{}`, ``, ` `, `{`, `{"a":1} x`,
	} {
		f.Add("tools/call", []byte(s))
	}
	f.Add("initialize", []byte(`{"protocolVersion":"2025-06-18","clientInfo":{"name":"a","version":"1"}}`))
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		d := session.MCPCallData{Server: "s", Method: method, Params: params}
		key := d.Key()
		if again := (session.MCPCallData{Server: "s", Method: method, Params: []byte(d.Asked())}); again.Key() != key {
			t.Fatalf("the key of the canonical params %s differs from that of %q", d.Asked(), params)
		}
		if method == "initialize" {
			if other := (session.MCPCallData{Server: "s", Method: method, Params: []byte(`{"x":1}`)}); other.Key() != key {
				t.Fatalf("initialize's key depends on its params %q", params)
			}
			return
		}
		if !json.Valid(params) || len(jsonscan.Repeated(params, nil)) > 0 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		respelled, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("encoding/json reads %q but does not write it back: %v", params, err)
		}
		if other := (session.MCPCallData{Server: "s", Method: method, Params: respelled}); other.Key() != key {
			t.Fatalf("%q and its respelling %s have different keys:\n%q\n%q", params, respelled, d.Asked(), other.Asked())
		}
		if obj, ok := v.(map[string]any); ok {
			obj["_meta"] = map[string]any{"progressToken": 7}
			withMeta, _ := json.Marshal(obj)
			if other := (session.MCPCallData{Server: "s", Method: method, Params: withMeta}); other.Key() != key {
				t.Fatalf("%q with a _meta member has a different key:\n%q\n%q", params, d.Asked(), other.Asked())
			}
		}
	})
}
