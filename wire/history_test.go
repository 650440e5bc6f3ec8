package wire_test

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a conversation's history as the log compares it", func() {
	userText := func(s string) string {
		return `{"role":"user","content":[{"type":"text","text":` + fmt.Sprintf("%q", s) + `}]}`
	}
	call1 := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"key":"release"}}]}`
	result := func(isError bool) string {
		return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"v2.4.1","is_error":%t}]}`, isError)
	}
	a1 := `{"role":"assistant","content":"v2.4.1 it is."}`
	q1, q2 := userText("Which release is current?"), userText("And who owns it?")
	stream := func(msgs ...string) string {
		return `{"max_tokens":1024,"messages":[` + strings.Join(msgs, ",") + `],"model":"claude-x","stream":true}`
	}

	It("is rewritten when a tool result sent back as an error is sent again as none (is_error is what a model sees)", func() {
		logs := callAnthropic([]wire.Format{wire.AnthropicMessages}, wire.Explicit,
			stream(q1), stream(q1, call1, result(true)), stream(q1, call1, result(false), a1, q2))
		Expect(logs["root"]).To(ContainSubstring(`history/replace`))
	})

	It("is not rewritten when the same result comes again", func() {
		logs := callAnthropic([]wire.Format{wire.AnthropicMessages}, wire.Explicit,
			stream(q1), stream(q1, call1, result(true)), stream(q1, call1, result(true), a1, q2))
		Expect(logs["root"]).NotTo(ContainSubstring(`history/replace`))
	})
})
