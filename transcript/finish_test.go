package transcript_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

var _ = Describe("finish chunks in other spellings", func() {
	// The transcript skips decoding chunks that cannot be a finish; a finish
	// whose type is spelled with escapes must still show.
	DescribeTable("shows a failed call whatever the spelling of its finish",
		func(data string) {
			b := newLog(session.Header{ID: "root"}).turnStart(1, "user").user("hi").stepStart()
			b.event(session.TypeAssistantChunk, json.RawMessage(data))
			text, err := transcript.Render([]*session.Log{b.log})
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.Split(text, "\n")).To(ContainElement("    model call failed: E: boom"))
		},
		Entry("as written", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"boom","code":"E"}}}}`),
		Entry("type escaped", `{"turn":1,"step":1,"chunk":{"type":"fin\u0069sh","reason":{"kind":"error","failure":{"message":"boom","code":"E"}}}}`),
		Entry("type and kind escaped", `{"turn":1,"step":1,"chunk":{"type":"\u0066\u0069\u006e\u0069\u0073\u0068","reason":{"kind":"\u0065rror","failure":{"message":"boom","code":"E"}}}}`),
	)
})
