package session_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// stdJSON is what MarshalData wrote before it encoded the runtime's
// payloads itself: encoding/json, HTML escaping off.
func stdJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	Expect(enc.Encode(v)).To(Succeed())
	return string(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
}

// oldPartJSON is Part.MarshalJSON as it was written before: jsonscan's
// strings, content through encoding/json.
func oldPartJSON(p session.Part) string {
	out := jsonscan.AppendString([]byte(`{"type":`), p.Type)
	switch p.Type {
	case session.PartToolCall:
		out = jsonscan.AppendString(append(out, `,"id":`...), p.ID)
		out = jsonscan.AppendString(append(out, `,"name":`...), p.Name)
		out = jsonscan.AppendString(append(out, `,"arguments":`...), p.Arguments)
	case session.PartToolResult:
		out = jsonscan.AppendString(append(out, `,"toolCallId":`...), p.ToolCallID)
		if p.Name != "" {
			out = jsonscan.AppendString(append(out, `,"name":`...), p.Name)
		}
		content := p.Content
		if content == nil {
			content = []session.Part{}
		}
		out = append(append(out, `,"content":`...), stdJSON(content)...)
		out = append(out, fmt.Sprintf(`,"isError":%t`, p.IsError)...)
	default:
		out = jsonscan.AppendString(append(out, `,"text":`...), p.Text)
	}
	return string(append(out, '}'))
}

// awkward are strings whose encodings differ between encoders: every
// control character (\b and \f are where jsonscan and encoding/json part),
// quotes, HTML characters, invalid UTF-8, U+2028 and U+2029, DEL.
var awkward = func() []string {
	var ctl []byte
	for c := range 0x20 {
		ctl = append(ctl, byte(c))
	}
	return []string{"", "plain words", string(ctl), "\b\f", `"quoted" \back\slash/`, "<a href='x'>&amp;</a>",
		"bad \xff\xfe utf-8 \xe2\x82", "line\u2028para\u2029", "\x7f del", "café — 42 🙂"}
}()

func one(i int) *int { return &i }

// payloads builds one value of every payload type MarshalData encodes
// itself from s, in forms that take each omitempty branch.
func payloads(s string) []any {
	text := session.Message{Role: s, Content: []session.Part{session.TextPart(s), {Type: session.PartReasoning, Text: s}}, ID: s}
	call := session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: s, Name: s, Arguments: s}}}
	result := session.Message{Role: session.RoleTool, Content: []session.Part{
		{Type: session.PartToolResult, ToolCallID: s, Name: s, Content: []session.Part{session.TextPart(s)}, IsError: true},
		{Type: session.PartToolResult, ToolCallID: s},
	}}
	return []any{
		text, &text, call, result, session.Message{}, session.Message{Content: []session.Part{}},
		text.Content, []session.Part{}, session.TextPart(s),
		session.TurnStartData{Turn: 3, Trigger: s}, &session.TurnStartData{},
		session.StepData{Turn: 1, Step: -2}, &session.StepData{},
		session.RequestHeaderData{Turn: 1, Step: 2, Attempt: 3, Provider: s, Model: s, SystemDigest: s, SystemChars: 7, ToolsDigest: s,
			ToolCount: 2, ToolNames: []string{s, "b"}, MessagesDigest: s, MessageCount: 9, MessageDigests: []string{s, s}},
		&session.RequestHeaderData{ToolNames: []string{}, MessageDigests: []string{}},
		session.AssistantMessageData{Turn: 1, Step: 1, Message: call, Usage: &session.Usage{InputTokens: 5, OutputTokens: 6, CacheReadTokens: one(0), ReasoningTokens: one(9)}},
		&session.AssistantMessageData{Message: text, Usage: &session.Usage{}},
		session.ToolCallData{Turn: 1, Step: 2, CallID: s, Name: s, Arguments: s}, &session.ToolCallData{},
		session.ToolResultData{Turn: 4, Step: 5, Message: result}, &session.ToolResultData{},
		session.TurnEndData{Turn: 2, Reason: session.EndReason{Kind: s, Message: s}}, &session.TurnEndData{},
		&session.Usage{InputTokens: 1}, &session.FinishReason{Kind: s},
		&session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Message: s, Code: s, Status: 503}},
		&session.FinishReason{Failure: &session.Failure{}},
		// Types and nil pointers it leaves to encoding/json.
		(*session.Message)(nil), []session.Part(nil), session.EndReason{Kind: s}, map[string]string{"k": s},
	}
}

var _ = Describe("MarshalData", func() {
	It("encodes every runtime payload exactly as encoding/json does", func() {
		n := 0
		for _, s := range awkward {
			for _, v := range payloads(s) {
				got, err := session.MarshalData(v)
				Expect(err).NotTo(HaveOccurred())
				Expect(string(got)).To(Equal(stdJSON(v)), "%T from %q", v, s)
				n++
			}
		}
		Expect(n).To(BeNumerically(">", 300))
	})

	It("leaves Part's encoding as it was", func() {
		for _, s := range awkward {
			for _, v := range payloads(s) {
				if m, ok := v.(session.Message); ok {
					for _, p := range m.Content {
						got, err := p.MarshalJSON()
						Expect(err).NotTo(HaveOccurred())
						Expect(string(got)).To(Equal(oldPartJSON(p)), "%q", s)
					}
				}
			}
		}
	})
})
