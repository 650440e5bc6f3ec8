package session_test

import (
	"encoding/json"
	"reflect"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// decodable are the payload types Event.Decode reads in one pass.
var decodable = []reflect.Type{
	reflect.TypeFor[session.TurnStartData](), reflect.TypeFor[session.StepData](), reflect.TypeFor[session.TurnEndData](),
	reflect.TypeFor[session.ToolCallData](), reflect.TypeFor[session.Message](), reflect.TypeFor[session.ToolResultData](),
	reflect.TypeFor[session.AssistantMessageData](),
}

// decodeBoth decodes data into a new value of t with Event.Decode and with
// json.Unmarshal and expects the same value and the same failing.
func decodeBoth(t reflect.Type, data string) (fast bool) {
	got, want := reflect.New(t), reflect.New(t)
	e := session.Event{Type: "x", Data: json.RawMessage(data)}
	err := e.Decode(got.Interface())
	wantErr := json.Unmarshal([]byte(data), want.Interface())
	Expect(err != nil).To(Equal(wantErr != nil), "%s into %s: Decode %v, json %v", data, t, err, wantErr)
	Expect(got.Elem().Interface()).To(Equal(want.Elem().Interface()), "%s into %s", data, t)
	return session.DecodesPayloadCanonically([]byte(data), reflect.New(t).Interface())
}

var _ = Describe("Event.Decode's one-pass layout", func() {
	It("reads what MarshalData writes for the runtime's payloads in one pass, as encoding/json does", func() {
		n := 0
		for _, s := range awkward {
			for _, v := range payloads(s) {
				t := reflect.TypeOf(v)
				if t.Kind() == reflect.Pointer {
					if reflect.ValueOf(v).IsNil() {
						continue // null: encoding/json's
					}
					t = t.Elem()
				}
				if !slicesContains(decodable, t) {
					continue
				}
				data, err := session.MarshalData(v)
				Expect(err).NotTo(HaveOccurred())
				Expect(decodeBoth(t, string(data))).To(BeTrue(), "%s into %s", data, t)
				n++
			}
		}
		Expect(n).To(BeNumerically(">", 150))
	})

	DescribeTable("leaves every other layout to encoding/json, with the same result",
		func(t reflect.Type, data string) {
			Expect(decodeBoth(t, data)).To(BeFalse())
		},
		Entry("members reordered", reflect.TypeFor[session.StepData](), `{"step":1,"turn":2}`),
		Entry("a space", reflect.TypeFor[session.StepData](), `{"turn":1, "step":2}`),
		Entry("another case", reflect.TypeFor[session.StepData](), `{"Turn":1,"step":2}`),
		Entry("a repeated member", reflect.TypeFor[session.StepData](), `{"turn":1,"step":2,"step":3}`),
		Entry("an unknown member", reflect.TypeFor[session.TurnStartData](), `{"turn":1,"trigger":"user","x":[1]}`),
		Entry("minus zero", reflect.TypeFor[session.StepData](), `{"turn":-0,"step":2} `),
		Entry("a fraction", reflect.TypeFor[session.StepData](), `{"turn":1.5,"step":2}`),
		Entry("a string for a number", reflect.TypeFor[session.StepData](), `{"turn":"1","step":2}`),
		Entry("trailing bytes", reflect.TypeFor[session.StepData](), `{"turn":1,"step":2} x`),
		Entry("null", reflect.TypeFor[session.TurnEndData](), `null`),
		Entry("a null reason", reflect.TypeFor[session.TurnEndData](), `{"turn":1,"reason":null}`),
		Entry("an escaped key", reflect.TypeFor[session.Message](), `{"r\u006fle":"user","content":[]}`),
		Entry("no content", reflect.TypeFor[session.Message](), `{"role":"user"}`),
		Entry("a part with every member", reflect.TypeFor[session.Message](), `{"role":"user","content":[{"type":"text","text":"a","id":"b"}]}`),
		Entry("a null part content", reflect.TypeFor[session.Message](), `{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","content":null,"isError":false}]}`),
		Entry("isError not a boolean", reflect.TypeFor[session.Message](), `{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","content":[],"isError":1}]}`),
		Entry("a broken string", reflect.TypeFor[session.Message](), `{"role":"us\qer","content":[]}`),
		Entry("a raw control character", reflect.TypeFor[session.Message](), "{\"role\":\"a\tb\",\"content\":[]}"),
		Entry("a usage with a fraction", reflect.TypeFor[session.AssistantMessageData](), `{"turn":1,"step":1,"message":{"role":"assistant","content":[]},"usage":{"inputTokens":1.5,"outputTokens":2}}`),
		Entry("a usage member without a value", reflect.TypeFor[session.AssistantMessageData](), `{"turn":1,"step":1,"message":{"role":"assistant","content":[]},"usage":{"inputTokens":1,"outputTokens":2,"cacheReadTokens":}}`),
		Entry("a usage with an unknown member", reflect.TypeFor[session.AssistantMessageData](), `{"turn":1,"step":1,"message":{"role":"assistant","content":[]},"usage":{"inputTokens":1,"outputTokens":2,"x":3}}`),
		Entry("tool results nested too deep", reflect.TypeFor[session.Message](), nested(20)),
		Entry("cut short", reflect.TypeFor[session.ToolCallData](), `{"turn":1,"step":1,"callId":"c","name":"n","arguments":"{}"`),
	)

	It("leaves a target that holds values to encoding/json, which keeps what the data does not set", func() {
		d := session.TurnStartData{Trigger: "kept"}
		e := session.Event{Type: session.TypeTurnStart, Data: json.RawMessage(`{"turn":3}`)}
		Expect(e.Decode(&d)).To(Succeed())
		Expect(d).To(Equal(session.TurnStartData{Turn: 3, Trigger: "kept"}))
		m := session.Message{ID: "kept"}
		Expect(session.DecodesPayloadCanonically([]byte(`{"role":"user","content":[]}`), &m)).To(BeFalse())
	})
})

// nested is a tool message whose result holds a result, depth times.
func nested(depth int) string {
	inner := `[{"type":"text","text":"x"}]`
	for range depth {
		inner = `[{"type":"tool-result","toolCallId":"c","content":` + inner + `,"isError":false}]`
	}
	return `{"role":"tool","content":` + inner + `}`
}

func slicesContains(ts []reflect.Type, t reflect.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

var _ = Describe("Event.Decode of a message", func() {
	It("allocates for the parts and their text, not for the role and part types", func() {
		m := session.Message{Role: session.RoleAssistant, Content: []session.Part{
			{Type: session.PartReasoning, Text: "hmm"}, {Type: session.PartText, Text: "hello"},
			{Type: session.PartToolCall, ID: "c1", Name: "f", Arguments: "{}"},
		}}
		data, err := session.MarshalData(&m)
		Expect(err).NotTo(HaveOccurred())
		e := session.Event{Type: session.TypeUserMessage, Data: data}
		var got session.Message
		allocs := testing.AllocsPerRun(20, func() {
			got = session.Message{}
			_ = e.Decode(&got)
		})
		Expect(got).To(Equal(m))
		// The parts slice (grown to three), the two texts, the call's id,
		// name and arguments, and two of the decoder's own: none for the
		// role and the part types (14 when they were decoded).
		Expect(allocs).To(BeNumerically("<=", 3+5+2))
	})
})

var _ = Describe("CanonicalChunkData", func() {
	It("checks a chunk of any kind without allocating, and reads it again as it was", func() {
		code := "RATE_LIMIT"
		chunks := []session.Chunk{
			{Type: session.ChunkTextDelta, Index: 0, Text: "hi"},
			{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockToolCall, ID: "c1", Name: "f", Arguments: "{}"}},
			{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 3, OutputTokens: 4}},
			session.ErrorFinish(code, "slow down"),
		}
		for _, c := range chunks {
			data, err := session.MarshalData(&session.ChunkData{Turn: 1, Step: 2, Chunk: c})
			Expect(err).NotTo(HaveOccurred())
			Expect(session.CanonicalChunkData(data)).To(BeTrue(), string(data))
			Expect(testing.AllocsPerRun(20, func() { session.CanonicalChunkData(data) })).To(BeZero(), string(data))
			got, err := session.DecodeChunkData(data)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Chunk).To(Equal(c), "a decode still keeps what it read")
		}
	})
})
