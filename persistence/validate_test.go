package persistence_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("ValidateEvent on chunk payloads", func() {
	// Chunks in the runtime's own layout skip the generic scan; these
	// check that whatever the layout, exactly the data a reader can take
	// back from its line passes.
	DescribeTable("passes one-line JSON and refuses anything else",
		func(data string) {
			e := session.Event{Type: session.TypeAssistantChunk, Seq: 3, Data: json.RawMessage(data)}
			err := persistence.ValidateEvent(&e)
			if json.Valid([]byte(data)) && !strings.ContainsAny(data, "\n\r") {
				Expect(err).NotTo(HaveOccurred())
				l, rerr := session.Read(strings.NewReader(string(session.Encode(&session.Header{ID: "s"}, []session.Event{{Type: e.Type, Data: e.Data}}))), "x")
				Expect(rerr).NotTo(HaveOccurred())
				Expect(l.Events[0].Data).To(Equal(e.Data))
			} else {
				Expect(err).To(MatchError(persistence.ErrInvalid))
				Expect(err.Error()).To(ContainSubstring("event seq 3 (assistant/chunk): data is not JSON"))
			}
		},
		Entry("a delta as the runtime writes it", `{"turn":1,"step":1,"attempt":1,"chunk":{"type":"text-delta","index":0,"text":" café \"q\" \u2028"}}`),
		Entry("a block start", `{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}`),
		Entry("a tool-call delta", `{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"c","name":"n","argumentsDelta":"{\"a\":"}}`),
		Entry("a finish", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}`),
		Entry("a delta with spaces", `{ "turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "a"} }`),
		Entry("a raw newline in the text", "{\"turn\":1,\"step\":1,\"chunk\":{\"type\":\"text-delta\",\"index\":0,\"text\":\"a\nb\"}}"),
		Entry("a newline between members", "{\"turn\":1,\n\"step\":1,\"chunk\":{\"type\":\"text-delta\",\"index\":0,\"text\":\"a\"}}"),
		Entry("a raw tab in the text", "{\"turn\":1,\"step\":1,\"chunk\":{\"type\":\"text-delta\",\"index\":0,\"text\":\"a\tb\"}}"),
		Entry("a broken escape", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a\qb"}}`),
		Entry("a text cut short", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"ab}}`),
		Entry("a missing brace", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"ab"}`),
		Entry("trailing bytes", `{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"ab"}}x`),
		Entry("a leading zero", `{"turn":01,"step":1,"chunk":{"type":"text-delta","index":0,"text":"ab"}}`),
	)
})

var _ = Describe("ValidateEvent on deep data", func() {
	// A value nested as deep as the scanner allows on its own sits one level
	// deeper inside its line, where the reader refuses it: the store would
	// accept a log it cannot read back.
	It("refuses data the reader would refuse inside its line, and passes one level less", func() {
		deep := func(n int) json.RawMessage {
			return json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))
		}
		readBack := func(data json.RawMessage) error {
			_, err := session.Read(strings.NewReader(string(session.Encode(&session.Header{ID: "s"}, []session.Event{{Type: "x", Data: data}}))), "x")
			return err
		}
		tooDeep := session.Event{Type: "x", Data: deep(10000)}
		Expect(readBack(tooDeep.Data)).To(HaveOccurred())
		Expect(persistence.ValidateEvent(&tooDeep)).To(MatchError(persistence.ErrInvalid))
		ok := session.Event{Type: "x", Data: deep(9999)}
		Expect(readBack(ok.Data)).To(Succeed())
		Expect(persistence.ValidateEvent(&ok)).To(Succeed())
	})
})
