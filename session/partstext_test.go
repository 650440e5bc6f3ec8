package session_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("PartsText", func() {
	It("joins the text parts, leaving reasoning and every other part out", func() {
		parts := []session.Part{session.TextPart("one, "), {Type: session.PartReasoning, Text: "hm"},
			{Type: session.PartToolCall, ID: "c", Name: "n", Arguments: "{}"}, session.TextPart("two")}
		Expect(session.PartsText(parts)).To(Equal("one, two"))
		Expect(session.PartsText(parts[1:3])).To(Equal(""))
		Expect(session.PartsText(nil)).To(Equal(""))
	})

	It("hands back one text part's text without copying it: every request read asks it of every tool result", func() {
		one := []session.Part{{Type: session.PartReasoning, Text: "hm"}, session.TextPart("v2.4 added SSO login.")}
		Expect(session.PartsText(one)).To(Equal("v2.4 added SSO login."))
		Expect(testing.AllocsPerRun(100, func() { _ = session.PartsText(one) })).To(BeZero())
	})
})
