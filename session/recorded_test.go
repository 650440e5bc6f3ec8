package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("an MCP request's key", func() {
	key := func(method, params string) string {
		d := session.MCPCallData{Server: "clock", Method: method, Params: json.RawMessage(params)}
		return d.Key()
	}

	It("is the server, the method and what the params ask, in canonical form, without _meta", func() {
		Expect(key("tools/call", `{"name":"now","arguments":{"zone":"UTC","n":1.50}}`)).
			To(Equal(key("tools/call", ` { "arguments": {"n":1.50, "zone":"UTC"}, "_meta": {"progressToken": 7}, "name": "now" }`)))
		Expect(key("tools/call", `{"name":"now","arguments":{"n":1.50}}`)).NotTo(Equal(key("tools/call", `{"name":"now","arguments":{"n":1.5}}`)), "numbers as written")
		Expect(key("tools/call", `{"name":"now"}`)).NotTo(Equal(key("tools/call", `{"name":"then"}`)))
		Expect(key("tools/call", `{}`)).NotTo(Equal(key("resources/read", `{}`)))
		other := session.MCPCallData{Server: "calendar", Method: "tools/call", Params: json.RawMessage(`{}`)}
		Expect(other.Key()).NotTo(Equal(key("tools/call", `{}`)))
	})

	It("of initialize is the server and the method alone", func() {
		Expect(key("initialize", `{"clientInfo":{"name":"a"}}`)).To(Equal(key("initialize", `{"clientInfo":{"name":"b"}}`)))
	})

	It("keeps params that are no JSON object as they are", func() {
		Expect(key("x", `[1, 2]`)).To(Equal(key("x", `[1,2]`)))
		Expect(key("x", `not json`)).To(Equal("clock\x00x\x00not json"))
		Expect(key("x", ``)).To(Equal("clock\x00x\x00"))
	})
})
