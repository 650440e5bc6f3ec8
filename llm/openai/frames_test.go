package openai_test

import (
	"encoding/json"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
)

// frameStrings are texts whose escaping differs: HTML characters (which
// encoding/json escapes by default), control characters, quotes and
// backslashes, line and paragraph separators, multi-byte runes and bytes
// that are not UTF-8.
var frameStrings = []string{
	"", "hello", "<in order> & in full", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"\u2028\u2029", "café 🙂 日本", "bad \xff\xfe\xe2\x82", "\xed\xa0\x80", `{"key":"release"}`, "</script>",
}

// randomString draws a text from frameStrings, or random bytes.
func randomString(r *rand.Rand) string {
	if r.IntN(3) > 0 {
		return frameStrings[r.IntN(len(frameStrings))]
	}
	b := make([]byte, r.IntN(10))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

func randomOpt(r *rand.Rand) *string {
	if r.IntN(2) == 0 {
		return nil
	}
	s := randomString(r)
	return &s
}

func randomInt(r *rand.Rand) *int {
	if r.IntN(2) == 0 {
		return nil
	}
	n := r.IntN(100000) - 10
	return &n
}

func randomDelta(r *rand.Rand) openai.Delta {
	d := openai.Delta{Content: randomOpt(r), ReasoningContent: randomOpt(r), Reasoning: randomOpt(r)}
	if r.IntN(2) == 0 {
		d.Role = randomString(r)
	}
	for range r.IntN(3) {
		c := openai.ToolCallDelta{Index: randomInt(r), Function: openai.FunctionDelta{Arguments: randomString(r)}}
		if r.IntN(2) == 0 {
			c.ID = randomString(r)
		}
		if r.IntN(2) == 0 {
			c.Type = randomString(r)
		}
		if r.IntN(2) == 0 {
			c.Function.Name = randomString(r)
		}
		d.ToolCalls = append(d.ToolCalls, c)
	}
	return d
}

func randomUsage(r *rand.Rand) openai.Usage {
	u := openai.Usage{CompletionTokens: r.IntN(5000), PromptTokens: r.IntN(5000) - 1, TotalTokens: r.IntN(10000), PromptCacheHitTokens: randomInt(r)}
	if r.IntN(2) == 0 {
		u.CompletionTokensDetails = &openai.CompletionTokensDetails{ReasoningTokens: randomInt(r)}
	}
	if r.IntN(2) == 0 {
		u.PromptTokensDetails = &openai.PromptTokensDetails{CachedTokens: randomInt(r)}
	}
	return u
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = Describe("the frames of a served stream", func() {
	r := rand.New(rand.NewPCG(22, 7))

	It("are the bytes encoding/json's Marshal writes for the schema's chunks, HTML escaping on", func() {
		for range 3000 {
			d, model, finish := randomDelta(r), randomString(r), randomOpt(r)
			want := marshal(openai.Chunk{ID: openai.CompletionID, Object: "chat.completion.chunk", Model: model,
				Choices: []openai.Choice{{Delta: d, FinishReason: finish}}})
			Expect(string(openai.AppendFrame([]byte("data: "), model, &d, finish))).To(Equal("data: "+want), "%#v", d)
		}
	})

	It("write the usage frame and the error frame as encoding/json does", func() {
		for range 500 {
			u := randomUsage(r)
			want := marshal(openai.Chunk{ID: openai.CompletionID, Object: "chat.completion.chunk", Choices: []openai.Choice{}, Usage: &u})
			Expect(string(openai.AppendUsageFrame(nil, &u))).To(Equal(want))
			b := openai.NewErrorBody(randomString(r), randomString(r), randomString(r))
			Expect(string(openai.AppendErrorBody(nil, &b))).To(Equal(marshal(b)))
		}
	})

	It("escape what encoding/json escapes: <, > and &, control characters, separators, bytes that are not UTF-8", func() {
		text := "<b> & \x01\u2028\xff"
		got := string(openai.AppendFrame(nil, "m", &openai.Delta{Content: &text}, nil))
		Expect(got).To(ContainSubstring(`"content":"\u003cb\u003e \u0026 \u0001\u2028\ufffd"`))
	})
})
