package gemini_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a tool result's functionResponse.response", func() {
	result := func(isError bool, texts ...string) session.Part {
		p := session.Part{Type: session.PartToolResult, ToolCallID: "call_1", Name: "research", IsError: isError}
		for _, t := range texts {
			p.Content = append(p.Content, session.TextPart(t))
		}
		return p
	}
	// texts that encoding/json writes each its own way: HTML, controls,
	// the line separators, invalid UTF-8, a rune split between two parts.
	texts := []string{"", "v2.4 added SSO login.", `<a href="x">&amp;</a>`, "tab\there\nline\x00\x1f\b\f", "\u2028\u2029", "bad \xff utf-8", strings.Repeat("long text ", 100)}

	It("is written as encoding/json writes {\"output\"|\"error\": text}, one part or several", func() {
		for _, isError := range []bool{false, true} {
			key := map[bool]string{false: "output", true: "error"}[isError]
			for _, t := range texts {
				want, err := session.MarshalData(map[string]string{key: t})
				Expect(err).NotTo(HaveOccurred())
				Expect(string(gemini.ResultResponse(result(isError, t)))).To(Equal(string(want)), "%q", t)
			}
			want, err := session.MarshalData(map[string]string{key: "é and more"})
			Expect(err).NotTo(HaveOccurred())
			Expect(string(gemini.ResultResponse(result(isError, "\xc3", "\xa9 and more")))).To(Equal(string(want)), "a rune split between two text parts")
		}
	})

	It("is not kept when the agent sent what agentsnap would, and comparing it allocates nothing", func() {
		for _, t := range texts {
			p := result(false, t)
			sent := gemini.ResultResponse(p)
			Expect(gemini.KeepsResponse(sent, p)).To(BeFalse(), "%q", t)
			Expect(gemini.KeepsResponse(json.RawMessage(`{"name":"research","content":"x"}`), p)).To(BeTrue())
		}
		p := result(false, "v2.4 added SSO login.")
		sent := gemini.ResultResponse(p)
		// Every tool result of every request is compared: the comparison
		// once cost eight allocations a result (a map through encoding/json).
		Expect(testing.AllocsPerRun(100, func() { gemini.KeepsResponse(sent, p) })).To(BeZero())
	})
})
