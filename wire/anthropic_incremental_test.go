package wire_test

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// wholeAnthropic is Anthropic Messages read whole on every call: only the
// methods of Format, not the handler's way of reading a request against
// the session's last one.
type wholeAnthropic struct{ wire.Format }

// callAnthropic sends bodies to POST /v1/messages of a new handler
// serving formats, each a request of the root session (or of the session
// its headers name: "SESSION PARENT CALL MODE\n" before the body), and
// returns every log it wrote, encoded.
func callAnthropic(formats []wire.Format, lineage wire.Lineage, bodies ...string) map[string]string {
	GinkgoHelper()
	answers := map[string][]any{"root": {[]session.Part{toolCall("toolu_1", "lookup", `{"key":"release"}`)}, "v2.4.1 it is.",
		[]session.Part{toolCall("toolu_2", "lookup", `{"key":"owner"}`)}, "team-atlas."}}
	return serveBodies("/v1/messages", answers, formats, lineage, bodies...)
}

var _ = Describe("an Anthropic Messages request read against the session's last one", func() {
	userText := func(s string) string {
		return `{"role":"user","content":[{"type":"text","text":` + fmt.Sprintf("%q", s) + `}]}`
	}
	asked := func(id, key string) string {
		return `{"role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"c2ln"},` +
			`{"type":"tool_use","id":"` + id + `","name":"lookup","input":{"key":"` + key + `"}}]}`
	}
	result := func(id, text string) string {
		return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"` + text + `","cache_control":{"type":"ephemeral"}}]}`
	}
	said := func(s string) string { return `{"role":"assistant","content":"` + s + `"}` }
	q1, q2 := userText("Which release is current?"), userText("And who owns it?")
	call1, call2 := asked("toolu_1", "release"), asked("toolu_2", "owner")
	r1, r2, a1 := result("toolu_1", "v2.4.1"), result("toolu_2", "team-atlas"), said("v2.4.1 it is.")
	system := `"system":[{"type":"text","text":"Be terse."}]`
	tools := `"tools":[{"name":"lookup","input_schema":{"type":"object"}}]`
	stream := func(msgs ...string) string {
		return `{"max_tokens":1024,"messages":[` + strings.Join(msgs, ",") + `],"model":"claude-x",` + system + `,` + tools + `,"stream":true}`
	}

	DescribeTable("writes the logs a handler reading every request whole writes, byte for byte",
		func(want string, bodies ...string) {
			whole := callAnthropic([]wire.Format{wholeAnthropic{wire.AnthropicMessages}}, wire.Explicit, bodies...)
			got := callAnthropic([]wire.Format{wire.AnthropicMessages}, wire.Explicit, bodies...)
			Expect(got).To(Equal(whole))
			Expect(got["root"]).To(ContainSubstring(want))
		},
		Entry("a conversation that grows", `"turn":2`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(q1, call1, r1, a1, q2, call2, r2)),
		Entry("a history rewritten by one byte", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(userText("Which release is current!"), call1, r1, a1, q2)),
		Entry("a tool result rewritten", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, result("toolu_1", "v2.4.2"), a1, q2)),
		Entry("a tool renamed in an earlier answer", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(q1, strings.Replace(call1, `"lookup"`, `"search"`, 1), r1, a1, q2)),
		Entry("an answer sent back other than given", `history/replace`,
			stream(q1), stream(q1, asked("toolu_1", "owner"), r1)),
		Entry("a result for a call of the history the agent sent, named after it", `"toolCallId":"toolu_9","name":"lookup"`,
			stream(q1, asked("toolu_9", "owner")), stream(q1, asked("toolu_9", "owner"), result("toolu_9", "team-atlas"))),
		Entry("an answer sent back spaced otherwise", `"turn":2`,
			stream(q1), stream(q1, call1, r1), stream(q1, strings.ReplaceAll(call1, `,"name"`, ` ,"name"`), r1, a1, q2)),
		Entry("a history cut short", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(q1, call1, r1, a1, q2, call2, r2), stream(q2)),
		Entry("a setting changed", `"max_tokens":2048`,
			stream(q1), strings.Replace(stream(q1, call1, r1), "1024", "2048", 1)),
		Entry("the system prompt changed", `"systemChars":11`,
			stream(q1), strings.Replace(stream(q1, call1, r1), "Be terse.", "Be briefer.", 1)),
		Entry("the tools changed", `"search"`,
			stream(q1), strings.Replace(stream(q1, call1, r1), `"name":"lookup","input_schema"`, `"name":"search","input_schema"`, 1)),
		Entry("a request the handler refuses, then the conversation again", `"turn":2`,
			stream(q1), stream(q1, call1, r1, `{"role":"wizard"}`), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2)),
		Entry("messages named twice", `"turn":1`,
			stream(q1), strings.Replace(stream(q1, call1, r1), `"stream":true`, `"stream":true,"Messages":[]`, 1)),
	)

	It("writes the same logs when the sessions name themselves in headers, and when lineage is inferred", func() {
		bodies := []string{"root\n" + stream(q1), "root\n" + stream(q1, call1, r1), "root\n" + stream(userText("Which release is current!"), call1, r1, a1, q2)}
		Expect(callAnthropic([]wire.Format{wire.AnthropicMessages}, wire.Explicit, bodies...)).
			To(Equal(callAnthropic([]wire.Format{wholeAnthropic{wire.AnthropicMessages}}, wire.Explicit, bodies...)))
		plain := []string{stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(userText("Which release is current!"), call1, r1, a1, q2, call2, r2)}
		Expect(callAnthropic([]wire.Format{wire.AnthropicMessages}, wire.Infer, plain...)).
			To(Equal(callAnthropic([]wire.Format{wholeAnthropic{wire.AnthropicMessages}}, wire.Infer, plain...)))
	})

	It("replays an agent on the Anthropic SDK to the same logs, byte for byte, as a handler reading every request whole", func() {
		readWhole := func(c *wire.Config) {
			c.Formats = []wire.Format{wholeAnthropic{wire.AnthropicMessages}}
		}
		for _, change := range []func(*claudeAgent){
			func(*claudeAgent) {},
			func(a *claudeAgent) { a.Thinking = 1024; a.MaxTokens = 2048 },
			func(a *claudeAgent) { a.ForkAll = true; a.Nudge = "Go on." },
		} {
			dir := recordClaude(claudeRuntimeWith(change))
			got := replayClaude(dir, harness.Options{Runtime: claudeRuntimeWith(change)})
			want := replayClaude(dir, harness.Options{Runtime: claudeRuntimeWith(change, readWhole)})
			Expect(got.Replayed).To(HaveLen(3))
			Expect(encodeLogs(got.Replayed)).To(Equal(encodeLogs(want.Replayed)))
		}
	})
})

// encodeLogs is every log, encoded, by id.
func encodeLogs(logs []*session.Log) map[string]string {
	out := map[string]string{}
	for _, l := range logs {
		out[l.Header.ID] = string(session.Encode(&l.Header, l.Events))
	}
	return out
}
