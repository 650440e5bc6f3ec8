package transcript_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("multi-line text", func() {
	// lines is how the transcript lays text out under a label: continuation
	// lines aligned after it, trailing spaces and tabs cut from each line.
	lines := func(indent int, label, text string) string {
		pad := strings.Repeat("  ", indent)
		parts := strings.Split(strings.TrimRight(text, "\n"), "\n")
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", strings.TrimRight(pad+label+parts[0], " \t"))
		for _, l := range parts[1:] {
			fmt.Fprintf(&b, "%s\n", strings.TrimRight(pad+strings.Repeat(" ", len(label))+l, " \t"))
		}
		return b.String()
	}

	DescribeTable("lays a user message out under its label",
		func(text string) {
			b := newLog(session.Header{ID: "root"}).turnStart(1, "user").user(text)
			got, err := transcript.Render([]*session.Log{b.log})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal("== root ==\nturn 1 (user)\n" + lines(1, "user: ", text)))
		},
		Entry("one line", "hello"),
		Entry("empty", ""),
		Entry("several lines", "first\nsecond\n\nfourth"),
		Entry("trailing newlines", "a\nb\n\n\n"),
		Entry("trailing spaces and tabs", "a  \t\n \t \nb\t"),
		Entry("only spaces", "   "),
		Entry("a carriage return", "a\r\nb"),
	)
})
