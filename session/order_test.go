package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("PlaceOf", func() {
	// Each payload is a tool/call; want is the id decoding it gives, "" for
	// a call that places no child.
	payloads := []struct{ data, want string }{
		{`{"turn":0,"step":1,"callId":"call_1","name":"sub","arguments":"{}"}`, "call_1"},
		{`{"turn":0,"step":1,"callId":"call_\u00e9\"x","name":"sub","arguments":"{\"a\":1}"}`, "call_é\"x"},
		{`{"turn":0,"step":1,"callId":"","name":"sub","arguments":"{}"}`, ""},
		{`{"callId":"call_2","turn":0,"step":1,"name":"sub","arguments":"{}"}`, "call_2"},
		{`{"turn":0, "step":1, "callId":"call_3", "name":"sub", "arguments":"{}"}`, "call_3"},
		{`{"turn":0,"step":1,"callId":"call_4","name":"sub","arguments":"{}","more":1}`, "call_4"},
		// Arguments that are not a string do not decode: no place.
		{`{"turn":0,"step":1,"callId":"call_5","name":"sub","arguments":{}}`, ""},
		{`{"turn":0,"step":1,"callId":"call_6","name":7,"arguments":"{}"}`, ""},
		{`{"turn":0,"step":1,"callId":"call_7"}`, "call_7"},
		{`{"turn":"0","step":1,"callId":"call_8","name":"sub","arguments":"{}"}`, ""},
		{`[]`, ""},
	}

	It("reads each own tool call's id as decoding its payload gives it", func() {
		l := &session.Log{Header: session.Header{ID: "root"}}
		var want []string
		for i, p := range payloads {
			l.Events = append(l.Events, session.Event{Type: session.TypeToolCall, Seq: int64(i), Data: json.RawMessage(p.data)})
			var d session.ToolCallData
			if json.Unmarshal([]byte(p.data), &d) == nil && d.CallID != "" {
				Expect(d.CallID).To(Equal(p.want), p.data)
			} else {
				Expect(p.want).To(BeEmpty(), p.data)
			}
			if p.want != "" {
				want = append(want, p.want)
			}
		}
		l.Events = append(l.Events, session.Event{Type: "message/user", Seq: int64(len(payloads)), Data: json.RawMessage(payloads[0].data)})
		Expect(session.PlaceOf(l).Calls).To(Equal(want))
	})

	It("leaves out the seed's calls, which are the parent's", func() {
		call := json.RawMessage(payloads[0].data)
		l := &session.Log{Header: session.Header{ID: "root/call_1", ParentSession: "root", SeedLength: 1}, Events: []session.Event{
			{Type: session.TypeToolCall, Seq: 0, Data: call},
			{Type: session.TypeToolCall, Seq: 1, Data: json.RawMessage(payloads[3].data)},
		}}
		Expect(session.PlaceOf(l).Calls).To(Equal([]string{"call_2"}))
	})
})
