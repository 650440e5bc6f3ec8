package wire_test

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// wholeResponses is the Responses format read whole on every call: only
// the methods of Format, not the handler's way of reading a request
// against the session's last one.
type wholeResponses struct{ wire.Format }

// callResponses sends bodies to POST /v1/responses of a new handler
// serving format, each a request of the root session, and returns every
// log it wrote, encoded.
func callResponses(format wire.Format, lineage wire.Lineage, bodies ...string) map[string]string {
	GinkgoHelper()
	answers := map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "v2.4.1 it is.",
		[]session.Part{toolCall("call_2", "lookup", `{"key":"owner"}`)}, "team-atlas."}}
	return serveBodies("/v1/responses", answers, []wire.Format{format}, lineage, bodies...)
}

var _ = Describe("a Responses request read against the session's last one", func() {
	user := func(s string) string { return `{"content":` + fmt.Sprintf("%q", s) + `,"role":"user"}` }
	asked := func(id, key string) string {
		return `{"id":"rs_` + id + `","summary":[],"type":"reasoning","encrypted_content":"ZQ=="},` +
			`{"arguments":"{\"key\":\"` + key + `\"}","call_id":"` + id + `","name":"lookup","type":"function_call","id":"fc_` + id + `","status":"completed"}`
	}
	output := func(id, text string) string {
		return `{"call_id":"` + id + `","output":"` + text + `","type":"function_call_output"}`
	}
	said := func(s string) string {
		return `{"id":"msg_1","content":[{"annotations":[],"text":"` + s + `","type":"output_text"}],"role":"assistant","status":"completed","type":"message"}`
	}
	q1, q2 := user("Which release is current?"), user("And who owns it?")
	call1, call2 := asked("call_1", "release"), asked("call_2", "owner")
	r1, r2, a1 := output("call_1", "v2.4.1"), output("call_2", "team-atlas"), said("v2.4.1 it is.")
	tools := `"tools":[{"name":"lookup","parameters":{"type":"object"},"strict":true,"type":"function","description":"Look it up."}]`
	stream := func(items ...string) string {
		return `{"input":[` + strings.Join(items, ",") + `],"instructions":"Be terse.","model":"gpt-x","store":false,` + tools + `,"temperature":0.5,"stream":true}`
	}

	DescribeTable("writes the logs a handler reading every request whole writes, byte for byte",
		func(want string, reuses bool, bodies ...string) {
			whole := callResponses(wholeResponses{wire.Responses()}, wire.Explicit, bodies...)
			f, reused := wire.CountingResponses()
			got := callResponses(f, wire.Explicit, bodies...)
			Expect(got).To(Equal(whole))
			Expect(got["root"]).To(ContainSubstring(want))
			Expect(reused() > 0).To(Equal(reuses), "requests read against the last, reusing its messages: %d", reused())
		},
		Entry("a conversation that grows", `"turn":2`, true,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(q1, call1, r1, a1, q2, call2, r2)),
		Entry("a history rewritten by one byte", `history/replace`, true,
			stream(q1), stream(q1, call1, r1), stream(user("Which release is current!"), call1, r1, a1, q2)),
		Entry("a function output rewritten", `history/replace`, true,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, output("call_1", "v2.4.2"), a1, q2)),
		Entry("a function renamed in an earlier answer", `history/replace`, true,
			stream(q1), stream(q1, call1, r1), stream(q1, strings.Replace(call1, `"lookup"`, `"search"`, 1), r1, a1, q2)),
		Entry("an output for a call of the history the agent sent, named after it", `"toolCallId":"call_9","name":"lookup"`, true,
			stream(q1, asked("call_9", "owner")), stream(q1, asked("call_9", "owner"), output("call_9", "team-atlas"))),
		Entry("a history cut short", `history/replace`, true,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(q1, call1, r1, a1, q2, call2, r2), stream(q2)),
		Entry("a setting changed", `"temperature":0.7`, true,
			stream(q1), strings.Replace(stream(q1, call1, r1), "0.5", "0.7", 1)),
		Entry("the instructions changed", `"systemChars":11`, true,
			stream(q1), strings.Replace(stream(q1, call1, r1), "Be terse.", "Be briefer.", 1)),
		Entry("the tools changed", `"search"`, true,
			stream(q1), strings.Replace(stream(q1, call1, r1), `"name":"lookup","parameters"`, `"name":"search","parameters"`, 1)),
		Entry("a request the handler refuses, then the conversation again", `"turn":2`, true,
			stream(q1), stream(q1, call1, r1, `{"role":"wizard"}`), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2)),
		Entry("input named twice", `"turn":1`, false,
			stream(q1), strings.Replace(stream(q1, call1, r1), `"stream":true`, `"stream":true,"Input":[]`, 1)),
		Entry("an input that is a string", `"turn":1`, false,
			`{"input":"Which release is current?","model":"gpt-x","store":false,"stream":true}`,
			`{"input":"Which release is current?","model":"gpt-x","store":false,"stream":true}`),
	)

	It("writes the same logs when lineage is inferred", func() {
		plain := []string{stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(user("Which release is current!"), call1, r1, a1, q2, call2, r2)}
		f, reused := wire.CountingResponses()
		Expect(callResponses(f, wire.Infer, plain...)).To(Equal(callResponses(wholeResponses{wire.Responses()}, wire.Infer, plain...)))
		Expect(reused()).To(BeNumerically(">", 0))
	})

	It("replays an agent on openai-go's Responses client — sending its items back, or chaining by previous_response_id — to the same logs, byte for byte, as a handler reading every request whole", func() {
		readWhole := func(c *wire.Config) { c.Formats = []wire.Format{wholeResponses{wire.Responses()}} }
		var mu sync.Mutex
		var counts []func() int64
		counting := func(c *wire.Config) {
			f, n := wire.CountingResponses()
			mu.Lock()
			counts = append(counts, n)
			mu.Unlock()
			c.Formats = []wire.Format{f}
		}
		for _, change := range []func(*respAgent){items, itemsOnce, func(a *respAgent) { a.Items, a.ForkAll = true, true }, chained, func(a *respAgent) { a.ForkAll = true }} {
			counts = nil
			fx := loadFixture(recordResp(respRuntime(change)))
			got := replayWith(fx, harness.Options{Runtime: respRuntime(change, counting)})
			want := replayWith(fx, harness.Options{Runtime: respRuntime(change, readWhole)})
			Expect(got.Replayed).To(HaveLen(3))
			Expect(encodeLogs(got.Replayed)).To(Equal(encodeLogs(want.Replayed)))
			reused := int64(0)
			for _, n := range counts {
				reused += n()
			}
			Expect(reused).To(BeNumerically(">", 0), "the requests were read against the session's last one")
		}
	})
})
