package gemini_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/nexttest"
	"github.com/agentsnap/agentsnap/llm/gemini"
)

const (
	nextHead = `{`
	nextTail = `,"generationConfig":{"temperature":0.2},"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":[{"functionDeclarations":[{"name":"lookup","parametersJsonSchema":{"type":"object"}}]}]}`
)

// geminiBody is a request body with these contents (JSON texts) between
// head and tail members.
func geminiBody(head string, contents []string, tail string) []byte {
	return []byte(head + `"contents":[` + strings.Join(contents, ",") + `]` + tail)
}

// randomContent is one content of a conversation as agents send them: user
// text, an answer streamed as several model contents (text, thoughts,
// signatures alone, calls with and without ids), results paired by id or
// by a name an earlier call has, and now and then a content the whole
// read refuses or one that adds no message.
func randomContent(r *rand.Rand, step int) string {
	name := fmt.Sprintf("f%d", r.IntN(3))
	switch r.IntN(12) {
	case 0, 1:
		return fmt.Sprintf(`{"role":"user","parts":[{"text":"q%d"},{"text":" more"}]}`, step)
	case 2:
		return fmt.Sprintf(`{"role":"model","parts":[{"text":"think %d","thought":true},{"text":"a"}]}`, step)
	case 3:
		return `{"role":"model","parts":[{"text":"b","thoughtSignature":"c2ln"},{"thoughtSignature":"eA=="}]}`
	case 4, 5:
		return fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"name":%q,"args":{"k":%d}},"thoughtSignature":"czE="}]}`, name, step)
	case 6:
		return fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"id":"id%d","name":%q}}]}`, step%3, name)
	case 7, 8:
		return fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":%q,"response":{"output":"v%d"}}},{"functionResponse":{"name":"f1","response":{"error":"no"}}}]}`, name, step)
	case 9:
		return fmt.Sprintf(`{"parts":[{"functionResponse":{"id":"id%d","name":%q,"response":{"output":{"n":1}}}},{"text":"and"}]}`, r.IntN(3), name)
	case 10:
		switch r.IntN(3) {
		case 0:
			return `{"role":"user","parts":[{}]}` // no message: model contents around it are one answer
		case 1:
			return `null` // a user content without parts, to encoding/json
		}
		return `{"role":"function","parts":[]}`
	}
	if r.IntN(3) == 0 {
		return `{"role":"wizard","parts":[]}`
	}
	return `{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":""}}]}`
}

// decodeBoth reads body whole and against prev, and checks that both
// read the same call (or refuse it with the same error).
func decodeBoth(prev *gemini.Decoded, body []byte) *gemini.Decoded {
	GinkgoHelper()
	want, wantErr := gemini.DecodeRequest(body)
	got, err := gemini.DecodeNext(prev, body)
	if wantErr != nil {
		Expect(err).To(MatchError(wantErr.Error()), "%s", body)
		return nil
	}
	Expect(err).NotTo(HaveOccurred(), "%s", body)
	Expect(got.Call).To(Equal(want), "%s", body)
	return got
}

var _ = Describe("reading a session's requests, each against the last", func() {
	r := rand.New(rand.NewPCG(7, 41))

	It("reads what DecodeRequest reads, only the new contents when the last request's are repeated byte for byte", func() {
		reused := 0
		for range 60 {
			var contents []string
			var prev *gemini.Decoded
			var prevBody []byte
			for step := range 30 {
				for range 1 + r.IntN(2) {
					contents = append(contents, randomContent(r, step))
				}
				var before *gemini.Call
				if prev != nil {
					before = decodeBoth(nil, prevBody).Call
				}
				prevBody = geminiBody(nextHead, contents, nextTail)
				d := decodeBoth(prev, prevBody)
				if prev != nil {
					Expect(prev.Call).To(Equal(before), "the request read against is not changed")
				}
				if d == nil {
					contents, prev = nil, nil
					continue
				}
				if prev != nil && d.Reused > 0 {
					Expect(d.Reused).To(Equal(len(prev.Call.Messages)), "the last request's messages are taken as read")
					Expect(d.SameRest).To(BeTrue())
					reused++
				}
				prev = d
			}
		}
		Expect(reused).To(BeNumerically(">", 200))
	})

	It("reuses every earlier content of a conversation that grows by a call and its result", func() {
		contents := []string{`{"role":"user","parts":[{"text":"Which release?"}]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		for step := range 20 {
			contents = append(contents,
				fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"n":%d}},"thoughtSignature":"c2ln"}]}`, step),
				fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"output":"v%d"}}}]}`, step))
			d := decodeBoth(prev, geminiBody(nextHead, contents, nextTail))
			Expect(d.Reused).To(Equal(len(prev.Call.Messages)))
			Expect(d.Reused).To(Equal(1 + 2*step))
			Expect(d.SameRest).To(BeTrue())
			prev = d
		}
	})

	It("pairs a new result by name with a call of the last request's answer, skipping calls paired before", func() {
		contents := []string{`{"role":"user","parts":[{"text":"go"}]}`,
			`{"role":"model","parts":[{"functionCall":{"id":"a","name":"f"}},{"functionCall":{"id":"b","name":"f"}},{"functionCall":{"id":"c","name":"g"}}]}`,
			`{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"1"}}}]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		contents = append(contents, `{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"2"}}},{"functionResponse":{"name":"g","response":{"output":"3"}}}]}`)
		d := decodeBoth(prev, geminiBody(nextHead, contents, nextTail))
		Expect(d.Reused).To(Equal(3))
		Expect(d.Call.Messages[3].Content[0].ToolCallID).To(Equal("b"))
		Expect(d.Call.Messages[4].Content[0].ToolCallID).To(Equal("c"))
		again := decodeBoth(prev, geminiBody(nextHead, contents, nextTail))
		Expect(again.Call.Messages[3].Content[0].ToolCallID).To(Equal("b"), "the last request's pairing is not changed by reading against it")
	})

	It("pairs results by name past an answer's 64th call, read whole and against the last request", func() {
		var calls, results []string
		for k := range 70 {
			calls = append(calls, fmt.Sprintf(`{"functionCall":{"id":"c%d","name":"f"}}`, k))
			results = append(results, fmt.Sprintf(`{"functionResponse":{"name":"f","response":{"output":"%d"}}}`, k))
		}
		contents := []string{`{"role":"user","parts":[{"text":"go"}]}`,
			`{"role":"model","parts":[` + strings.Join(calls, ",") + `]}`,
			`{"role":"user","parts":[` + strings.Join(results[:66], ",") + `]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		for k, m := range prev.Call.Messages[2:] {
			Expect(m.Content[0].ToolCallID).To(Equal(fmt.Sprintf("c%d", k)))
		}
		contents = append(contents, `{"role":"user","parts":[`+strings.Join(results[66:], ",")+`]}`)
		for range 2 { // the second read against prev sees what the first saw
			d := decodeBoth(prev, geminiBody(nextHead, contents, nextTail))
			Expect(d.Reused).To(Equal(68))
			for k, m := range d.Call.Messages[68:] {
				Expect(m.Content[0].ToolCallID).To(Equal(fmt.Sprintf("c%d", 66+k)))
			}
		}
	})

	It("reads whole a model content that continues the last request's answer", func() {
		contents := []string{`{"role":"user","parts":[{"text":"go"}]}`, `{"role":"model","parts":[{"text":"hel"}]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		d := decodeBoth(prev, geminiBody(nextHead, append(contents, `{"role":"model","parts":[{"text":"lo","thoughtSignature":"c2ln"}]}`), nextTail))
		Expect(d.Reused).To(BeZero())
		Expect(d.Call.Messages[1].Content[0].Text).To(Equal("hello"))
		Expect(prev.Call.Messages[1].Content[0].Text).To(Equal("hel"), "the last request is unchanged")
	})

	It("reads a request whose earlier contents changed whole, however little they changed", func() {
		contents := []string{`{"role":"user","parts":[{"text":"Which release?"}]}`,
			`{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"key":"release"}},"thoughtSignature":"c2ln"}]}`,
			`{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"output":"v2.4.1"}}}]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		for i, edit := range []func([]string){
			func(c []string) { c[2] = strings.Replace(c[2], "v2.4.1", "v2.4.2", 1) },
			func(c []string) { c[0] = strings.Replace(c[0], "Which", "which", 1) },
			func(c []string) { c[1] = strings.Replace(c[1], `"name":"lookup"`, `"name":"lookuq"`, 1) }, // a name the result is paired by
			func(c []string) { c[1] = strings.Replace(c[1], `"c2ln"`, `"c2lo"`, 1) },                   // a thought signature
			func(c []string) { c[2] = strings.Replace(c[2], `}}}]}`, `}} }]}`, 1) },
		} {
			next := append([]string(nil), contents...)
			edit(next)
			next = append(next, `{"role":"user","parts":[{"text":"And the owner?"}]}`)
			d := decodeBoth(prev, geminiBody(nextHead, next, nextTail))
			Expect(d.Reused).To(BeZero(), "edit %d", i)
		}
		fewer := decodeBoth(prev, geminiBody(nextHead, contents[:2], nextTail))
		Expect(fewer.Reused).To(BeZero())
	})

	It("reads the other members again when their bytes changed: the system instruction, the tools, the settings", func() {
		contents := []string{`{"role":"user","parts":[{"text":"hi"}]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		contents = append(contents, `{"role":"model","parts":[{"text":"hello"}]}`, `{"role":"user","parts":[{"text":"bye"}]}`)
		for _, tail := range []string{
			strings.Replace(nextTail, "Be brief.", "Be kind.", 1),
			strings.Replace(nextTail, `"name":"lookup"`, `"name":"search"`, 1),
			strings.Replace(nextTail, `0.2`, `0.7`, 1),
			`}`,
		} {
			d := decodeBoth(prev, geminiBody(nextHead, contents, tail))
			Expect(d.Reused).To(Equal(1))
			Expect(d.SameRest).To(BeFalse())
		}
		d := decodeBoth(prev, geminiBody(`{"systemInstruction":{"parts":[{"text":"Be terse."}]},`, contents, `}`))
		Expect(d.Call.System).To(Equal("Be terse."))
		Expect(d.Call.Tools).To(BeEmpty())
	})

	DescribeTable("reads a body of another shape whole, with DecodeRequest's result or error",
		func(head string, more []string, tail string) {
			contents := []string{`{"role":"user","parts":[{"text":"hi"}]}`, `{"role":"model","parts":[{"text":"hello"}]}`}
			prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
			d := decodeBoth(prev, geminiBody(head, append(contents, more...), tail))
			if d != nil {
				Expect(d.Reused).To(BeZero())
			}
		},
		Entry("a new content of a role the API has not", nextHead, []string{`{"role":"wizard","parts":[]}`}, nextTail),
		Entry("a new content of the wrong type", nextHead, []string{`{"role":5}`}, nextTail),
		Entry("a new content that is not JSON", nextHead, []string{`{"role":"user"`}, nextTail),
		Entry("a new content the API cannot record", nextHead, []string{`{"parts":[{"fileData":{}}]}`}, nextTail),
		Entry("a trailing comma", nextHead, []string{`{"role":"user","parts":[]},`}, nextTail),
		Entry("contents twice", nextHead, []string{`{"role":"user","parts":[]}`}, `,"contents":[]}`),
		Entry("contents in other case after", nextHead, nil, `,"Contents":[{"role":"user","parts":[{"text":"y"}]}]}`),
		Entry("contents in other case before", `{"CONTENTS":[],`, nil, nextTail),
		Entry("contents folded by Unicode", `{"contentſ":[],`, nil, nextTail),
		Entry("a name with escapes", `{"c\u006fntents":[],`, nil, nextTail),
		Entry("a system instruction with escapes in its name", `{"systemInstructio\u006e":{"parts":[{"text":"x"}]},`, nil, nextTail),
		Entry("a member of the wrong type", `{"systemInstruction":5,`, nil, nextTail),
		Entry("something after the object", nextHead, nil, nextTail+` {}`),
		Entry("members without a comma", nextHead, nil, ` "x":1}`),
		Entry("a trailing comma among the members", nextHead, nil, `,"x":1,}`),
		Entry("the object unclosed", nextHead, nil, `,"x":1`),
	)

	It("reads two requests against the same one alike, at the same time: one grows its messages in place, the other copies them", func() {
		// Three messages: room for a fourth in place.
		contents := []string{`{"role":"user","parts":[{"text":"hi"}]}`, `{"role":"model","parts":[{"functionCall":{"name":"f"}}]}`, `{"parts":[{"text":"go on"}]}`}
		prev := decodeBoth(nil, geminiBody(nextHead, contents, nextTail))
		Expect(cap(prev.Call.Messages)).To(Equal(3), "clipped")
		bodies := [][]byte{
			geminiBody(nextHead, append(contents[:3:3], `{"parts":[{"functionResponse":{"name":"f","response":{}}}]}`), nextTail),
			geminiBody(nextHead, append(contents[:3:3], `{"parts":[{"text":"two"}]}`, `{"parts":[{"functionResponse":{"name":"f","response":{"output":1}}}]}`), nextTail),
		}
		first := decodeBoth(prev, bodies[0])
		decodeBoth(prev, bodies[1])
		Expect(first.Call).To(Equal(decodeBoth(nil, bodies[0]).Call), "a request read later against the same one changes no earlier one's messages")
		got, errs := nexttest.AtOnce(bodies, func(b []byte) (*gemini.Decoded, error) { return gemini.DecodeNext(prev, b) })
		Expect(errs).To(HaveEach(Succeed()))
		for i, b := range bodies {
			want, err := gemini.DecodeRequest(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Call).To(Equal(want))
			Expect(got[i].Reused).To(Equal(3))
		}
		Expect(prev.Call.Messages).To(HaveLen(3), "the one read against is unchanged")
	})

	It("reads every request against any earlier one alike", func() {
		bodies := nexttest.Conversation(r, 40, func(step int) string { return randomContent(r, step) }, func(m []string) []byte { return geminiBody(nextHead, m, nextTail) })
		nexttest.Pairs(r, bodies, 300, func(a, b []byte) {
			if prev, err := gemini.DecodeNext(nil, a); err == nil {
				decodeBoth(prev, b)
			}
		})
	})
})
