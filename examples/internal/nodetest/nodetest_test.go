package nodetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"
	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// reassemble reads StreamAnswer's frames back as a client does: the text
// and each tool call's arguments, concatenated.
func reassemble(frames []string) (text string, args []string, finish string) {
	for _, f := range frames {
		if f == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int `json:"index"`
						Function struct {
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		Expect(json.Unmarshal([]byte(f), &c)).To(Succeed(), f)
		for _, ch := range c.Choices {
			text += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				for len(args) <= tc.Index {
					args = append(args, "")
				}
				args[tc.Index] += tc.Function.Arguments
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	return text, args, finish
}

var _ = Describe("StreamAnswer", func() {
	DescribeTable("streams an answer a client reassembles exactly",
		func(a nodetest.Answer, wantText string, wantArgs []string, wantFinish string) {
			var frames []string
			nodetest.StreamAnswer(func(f string) { frames = append(frames, f) }, a)
			Expect(frames[len(frames)-1]).To(Equal("[DONE]"))
			text, args, finish := reassemble(frames)
			Expect(text).To(Equal(wantText))
			Expect(args).To(Equal(wantArgs))
			Expect(finish).To(Equal(wantFinish))
		},
		Entry("text, word by word", nodetest.Answer{Text: "It is sunny in Lisbon."}, "It is sunny in Lisbon.", nil, "stop"),
		Entry("tool calls, each in pieces", nodetest.Answer{Calls: []nodetest.Call{
			{ID: "call_1", Name: "weather", Args: `{"city":"Oslo"}`},
			{ID: "call_2", Name: "calculator", Args: `{"expression":"1+2"}`},
		}}, "", []string{`{"city":"Oslo"}`, `{"expression":"1+2"}`}, "tool_calls"),
	)
})

var _ = Describe("Environ", func() {
	It("drops the variables named and adds the extra pairs", func() {
		GinkgoT().Setenv("NODETEST_DROPPED", "1")
		GinkgoT().Setenv("NODETEST_KEPT", "1")
		env := nodetest.Environ([]string{"NODETEST_DROPPED"}, "NODETEST_EXTRA=2")
		Expect(env).NotTo(ContainElement(HavePrefix("NODETEST_DROPPED=")))
		Expect(env).To(ContainElements("NODETEST_KEPT=1", "NODETEST_EXTRA=2"))
	})
})

var _ = Describe("CopyFixture", func() {
	var src string
	BeforeEach(func() {
		src = filepath.Join(GinkgoT().TempDir(), "spawn", "two")
		Expect(os.MkdirAll(filepath.Join(src, "sub"), 0o755)).To(Succeed())
		for _, name := range []string{"scenario.json", "session.1.jsonl", fixture.ProposalFile} {
			Expect(os.WriteFile(filepath.Join(src, name), []byte(name), 0o644)).To(Succeed())
		}
	})

	names := func(dir string) []string {
		ents, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}

	It("copies the files into a CATEGORY/NAME folder, without a golden proposal or folders", func() {
		dst := nodetest.CopyFixture(src)
		Expect(strings.HasSuffix(dst, filepath.Join("spawn", "two"))).To(BeTrue(), dst)
		Expect(names(dst)).To(ConsistOf("scenario.json", "session.1.jsonl"))
		Expect(os.ReadFile(filepath.Join(dst, "scenario.json"))).To(Equal([]byte("scenario.json")))
	})

	It("copies only the files named, when some are", func() {
		Expect(names(nodetest.CopyFixture(src, "scenario.json"))).To(ConsistOf("scenario.json"))
	})
})
