package live_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/live"
)

var _ = Describe("the SSE frame parser", func() {
	DescribeTable("splits an event stream into frames",
		func(input string, want []string) {
			frames, err := live.ParseSSE(strings.NewReader(input), 1<<20)
			Expect(err).NotTo(HaveOccurred())
			Expect(frames).To(Equal(want))

			By("reading one byte at a time, so a CR can end a read before its LF")
			frames, err = live.ParseSSE(iotest.OneByteReader(strings.NewReader(input)), 1<<20)
			Expect(err).NotTo(HaveOccurred())
			Expect(frames).To(Equal(want))
		},
		Entry("LF line ends", "data: a\n\ndata: b\n\n", []string{"a", "b"}),
		Entry("CRLF line ends", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}),
		Entry("lone CR line ends", "data: a\r\rdata: b\r\r", []string{"a", "b"}),
		Entry("multi-line data joined by LF", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}),
		Entry("comments, event, id and retry ignored",
			": keep-alive\nevent: message\nid: 7\nretry: 10\ndata: x\n\n", []string{"x"}),
		Entry("no space after the colon", "data:x\n\n", []string{"x"}),
		Entry("only one leading space dropped", "data:  x\n\n", []string{" x"}),
		Entry("a bare data field is an empty line", "data\ndata: x\n\n", []string{"\nx"}),
		Entry("frames without data skipped", "\n\n: ping\n\nevent: x\n\ndata: y\n\n", []string{"y"}),
		Entry("a leading byte-order mark dropped", "\xEF\xBB\xBFdata: x\n\n", []string{"x"}),
		Entry("a last frame missing its blank line", "data: a\n\ndata: [DONE]\n", []string{"a", "[DONE]"}),
		Entry("a field named like data is not data", "database: x\ndata: y\n\n", []string{"y"}),
		Entry("empty input", "", []string(nil)),
	)

	It("reports input cut in the middle of a line as an unexpected EOF, after the frames before it", func() {
		frames, err := live.ParseSSE(strings.NewReader("data: a\n\ndata: {\"cho"), 1<<20)
		Expect(frames).To(Equal([]string{"a"}))
		Expect(err).To(MatchError(io.ErrUnexpectedEOF))
	})

	It("refuses a line over the limit instead of growing without bound", func() {
		long := "data: " + strings.Repeat("x", 200) + "\n\n"
		frames, err := live.ParseSSE(strings.NewReader("data: a\n\n"+long), 100)
		Expect(frames).To(Equal([]string{"a"}))
		Expect(err).To(MatchError(live.ErrFrameTooLarge))
	})

	It("refuses a frame of many short lines over the limit", func() {
		many := strings.Repeat("data: xxxxxxxxxx\n", 20) + "\n"
		_, err := live.ParseSSE(strings.NewReader(many), 100)
		Expect(err).To(MatchError(live.ErrFrameTooLarge))
	})

	It("returns a read error as it is", func() {
		boom := errors.New("boom")
		r := io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom))
		frames, err := live.ParseSSE(r, 1<<20)
		Expect(frames).To(Equal([]string{"a"}))
		Expect(err).To(MatchError(boom))
	})
})

var _ = Describe("StreamHeaders", func() {
	It("sets an event stream's headers, each value capped so that an append to one leaves the other", func() {
		h := http.Header{}
		live.StreamHeaders(h)
		Expect(h.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(h.Get("Cache-Control")).To(Equal("no-cache"))
		h["Content-Type"] = append(h["Content-Type"], "x")
		Expect(h["Cache-Control"]).To(Equal([]string{"no-cache"}))
	})
})
