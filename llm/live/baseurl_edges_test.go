package live_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/llm/live"
)

var _ = Describe("a bad base URL", func() {
	// The message named OpenAI's root to every API and not what was wrong.
	DescribeTable("says what is wrong with it, names every API's root and echoes none of it",
		func(base, why string) {
			_, err := live.New(gemini.GenerateContent{}, live.Config{BaseURL: base, Model: "m"})
			Expect(err).To(MatchError(live.ErrBaseURL))
			Expect(err.Error()).To(ContainSubstring(why))
			Expect(err.Error()).To(ContainSubstring("https://generativelanguage.googleapis.com"))
			Expect(err.Error()).NotTo(ContainSubstring("tok-3f9a"))
		},
		Entry("no scheme", "tok-3f9a.example/v1", "it has no scheme (http:// or https://)"),
		Entry("a host and port without a scheme", "tok-3f9a.local:11434/v1", "it has no scheme (http:// or https://)"),
		Entry("an IP address and port without a scheme", "10.0.0.7:8080/tok-3f9a", "it has no scheme (http:// or https://)"),
		Entry("another scheme", "ftp://tok-3f9a@example/v1", "its scheme is neither http nor https"),
		Entry("no host", "http:///tok-3f9a/v1", "it has no host"),
		Entry("no parse", "http://tok-3f9a@[::1/v1", "it does not parse as a URL"),
	)
})
