package anthropic_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/nexttest"
	"github.com/agentsnap/agentsnap/llm/anthropic"
)

// msgsBody is a request body with these messages (JSON texts) between
// head and tail members.
func msgsBody(head string, msgs []string, tail string) []byte {
	return []byte(head + `"messages":[` + strings.Join(msgs, ",") + `]` + tail)
}

const (
	nextHead = `{"max_tokens":1024,"model":"claude-x",`
	nextTail = `,"system":[{"type":"text","text":"Be terse."},{"type":"text","text":"Be kind.","cache_control":{"type":"ephemeral"}}],` +
		`"tools":[{"name":"lookup","description":"Look it up.","input_schema":{"type":"object"}}],"stream":true}`
)

// nextTexts are the texts random messages hold: plain, escaped, not UTF-8.
var nextTexts = []string{"hi", "", "a \"quoted\" <b>", "é😀", "\u2028", "line\nbreak", "\xff\xfe", `back\slash`}

// randomMessage is one message of a conversation as agents send them:
// text as a string or blocks, thinking and redacted thinking, tool_use
// blocks whose ids later results name (or ids no call has, or ids used
// twice), results with string or block content, cache_control.
func randomMessage(r *rand.Rand, step int) string {
	text := func() string {
		b, _ := json.Marshal(nextTexts[r.IntN(len(nextTexts))])
		return string(b)
	}
	switch r.IntN(8) {
	case 0:
		return `{"role":"user","content":` + text() + `}`
	case 1:
		return `{"role":"user","content":[{"type":"text","text":` + text() + `,"cache_control":{"type":"ephemeral"}},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}`
	case 2:
		return fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":%s,"signature":"c2ln"},{"type":"redacted_thinking","data":"ZA=="},`+
			`{"type":"tool_use","id":"toolu_%d","name":"f%d","input":{"k": [1, 2]}}]}`, text(), step%4, step)
	case 3:
		return `{"role":"assistant","content":` + text() + `}`
	case 4:
		return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%s,"is_error":%v},{"type":"text","text":%s}]}`,
			r.IntN(5), text(), r.IntN(2) == 0, text())
	case 5:
		return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":[{"type":"text","text":%s}]}]}`, r.IntN(5), text())
	case 6:
		return fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"g%d","input":{}},{"type":"tool_use","id":"toolu_%d","name":"h%d"}]}`,
			step%4, step, step%4, step)
	}
	return []string{`{"role":"system","content":"x"}`, `{"role":"assistant","content":[{"type":"tool_use","name":"f","input":{}}]}`,
		`{"role":"user","content":[{"type":"tool_result"}]}`, `{"role":"user","content":5}`}[r.IntN(4)]
}

// decodeBoth reads body whole and against prev, and checks that both
// read the same call (or refuse it with the same error).
func decodeBoth(prev *anthropic.Decoded, body []byte) *anthropic.Decoded {
	GinkgoHelper()
	want, wantErr := anthropic.DecodeRequest(body)
	got, err := anthropic.DecodeNext(prev, body)
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

	It("reads what DecodeRequest reads, only the new messages when the last request's are repeated byte for byte", func() {
		reused := 0
		for range 50 {
			var msgs []string
			var prev *anthropic.Decoded
			for step := range 30 {
				for range 1 + r.IntN(2) {
					msgs = append(msgs, randomMessage(r, step))
				}
				d := decodeBoth(prev, msgsBody(nextHead, msgs, nextTail))
				if d == nil {
					msgs, prev = nil, nil
					continue
				}
				if prev != nil {
					Expect(d.Reused).To(Equal(len(prev.Call.Messages)), "the last request's messages are taken as read")
					Expect(d.SameRest).To(BeTrue())
					reused += d.Reused
				}
				prev = d
			}
		}
		Expect(reused).To(BeNumerically(">", 1000))
	})

	It("reads a request whose earlier messages changed whole, however little they changed", func() {
		msgs := []string{`{"role":"user","content":"Which release?"}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"key":"release"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"v2.4.1"}]}`}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		for i, edit := range []func([]string){
			func(m []string) { m[2] = strings.Replace(m[2], "v2.4.1", "v2.4.2", 1) },
			func(m []string) { m[0] = strings.Replace(m[0], "Which", "which", 1) },
			func(m []string) { m[1] = strings.Replace(m[1], `"name":"lookup"`, `"name":"lookuq"`, 1) }, // a name a later result takes
			func(m []string) { m[2] = strings.Replace(m[2], `"content":"v2.4.1"}`, `"content":"v2.4.1" }`, 1) },
		} {
			next := append([]string(nil), msgs...)
			edit(next)
			next = append(next, `{"role":"user","content":"And the owner?"}`)
			d := decodeBoth(prev, msgsBody(nextHead, next, nextTail))
			Expect(d.Reused).To(BeZero(), "edit %d", i)
		}
		fewer := decodeBoth(prev, msgsBody(nextHead, msgs[:2], nextTail))
		Expect(fewer.Reused).To(BeZero())
	})

	It("names a new tool result after the latest earlier tool_use with its id, in the messages it repeats or in the new ones", func() {
		msgs := []string{
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"first","input":{}},{"type":"tool_use","id":"t1","name":"second","input":{}}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"other","input":{}}]}`,
		}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		msgs = append(msgs, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a"},{"type":"tool_result","tool_use_id":"t9","content":"b"}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"third","input":{}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"c"}]}`)
		d := decodeBoth(prev, msgsBody(nextHead, msgs, nextTail))
		Expect(d.Reused).To(Equal(2))
		Expect(d.Call.Messages[2].Content[0].Name).To(Equal("second"))
		Expect(d.Call.Messages[3].Content[0].Name).To(BeEmpty())
		Expect(d.Call.Messages[5].Content[0].Name).To(Equal("third"))
	})

	It("reads the other members again when their bytes changed: the system prompt, the tools, the model, a setting", func() {
		msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		msgs = append(msgs, `{"role":"user","content":"bye"}`)
		for _, change := range [][2]string{
			{`"Be terse."`, `"Be brief."`},
			{`"name":"lookup"`, `"name":"search"`},
			{`,"stream":true}`, `,"tools":null}`},
			{`"claude-x"`, `"claude-y"`},
			{`"max_tokens":1024`, `"max_tokens":2048,"temperature":0.5`},
		} {
			body := strings.Replace(string(msgsBody(nextHead, msgs, nextTail)), change[0], change[1], 1)
			d := decodeBoth(prev, []byte(body))
			Expect(d.Reused).To(Equal(2), change[1])
			Expect(d.SameRest).To(BeFalse(), change[1])
			after := decodeBoth(d, []byte(strings.Replace(body, `"bye"}`, `"bye"},{"role":"assistant","content":"ok"}`, 1)))
			Expect(after.Reused).To(Equal(3))
			Expect(after.SameRest).To(BeTrue())
		}
	})

	DescribeTable("reads a body of another shape whole, with DecodeRequest's result or error",
		func(head string, more []string, tail string) {
			msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`}
			prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
			d := decodeBoth(prev, msgsBody(head, append(msgs, more...), tail))
			if d != nil {
				Expect(d.Reused).To(BeZero())
			}
		},
		Entry("a new message of a role the API has not", nextHead, []string{`{"role":"system","content":"x"}`}, nextTail),
		Entry("a new message of the wrong type", nextHead, []string{`{"role":"user","content":5}`}, nextTail),
		Entry("a new message that is not JSON", nextHead, []string{`{"role":"user","content":"x"`}, nextTail),
		Entry("a new message that is null", nextHead, []string{`null`}, nextTail),
		Entry("a tool_use without an id", nextHead, []string{`{"role":"assistant","content":[{"type":"tool_use","name":"f","input":{}}]}`}, nextTail),
		Entry("a trailing comma", nextHead, []string{`{"role":"user","content":"x"},`}, nextTail),
		Entry("messages twice", nextHead, []string{`{"role":"user","content":"x"}`}, `,"messages":[]}`),
		Entry("messages in other case after", nextHead, nil, `,"Messages":[{"role":"user","content":"y"}]}`),
		Entry("messages in other case before", `{"MESSAGES":[],`, nil, nextTail),
		Entry("messages in Unicode case", `{"meſſages":[],`, nil, nextTail),
		Entry("a name with escapes", `{"m\u006fdel":"z",`, nil, nextTail),
		Entry("messages named with escapes", nextHead, nil, `,"m\u0065ssages":[]}`),
		Entry("a member of the wrong type", `{"model":5,`, nil, nextTail),
		Entry("a system prompt of another block", nextHead, nil, `,"system":[{"type":"image"}]}`),
		Entry("a tool without a name", nextHead, nil, `,"tools":[{"description":"x"}]}`),
		Entry("something after the object", nextHead, nil, nextTail+` {}`),
		Entry("members without a comma", nextHead, nil, ` "stream":true}`),
		Entry("a trailing comma among the members", nextHead, nil, `,"stream":true,}`),
		Entry("the object unclosed", nextHead, nil, `,"stream":true`),
		Entry("a new message nested past encoding/json's limit in the body", nextHead,
			[]string{`{"role":"assistant","content":[{"type":"tool_use","id":"d","name":"f","input":{"a":` + strings.Repeat("[", 9995) + strings.Repeat("]", 9995) + `}}]}`}, nextTail),
	)

	It("reads a new message nested as deep as encoding/json reads in the body against the last request", func() {
		msgs := []string{`{"role":"user","content":"hi"}`}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		deep := `{"role":"assistant","content":[{"type":"tool_use","id":"d","name":"f","input":{"a":` + strings.Repeat("[", 9994) + strings.Repeat("]", 9994) + `}}]}`
		Expect(decodeBoth(prev, msgsBody(nextHead, append(msgs, deep), nextTail)).Reused).To(Equal(1))
	})

	It("reads two requests against the same one alike, at the same time: one grows its messages in place, the other copies them", func() {
		// Three messages, read into a slice with room for a fourth: each
		// request adds one.
		msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}`, `{"role":"user","content":"wait"}`}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		bodies := [][]byte{
			msgsBody(nextHead, append(msgs[:3:3], `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"one"}]}`), nextTail),
			msgsBody(nextHead, append(msgs[:3:3], `{"role":"assistant","content":"two"}`), nextTail),
		}
		got, errs := nexttest.AtOnce(bodies, func(b []byte) (*anthropic.Decoded, error) { return anthropic.DecodeNext(prev, b) })
		Expect(errs).To(HaveEach(Succeed()))
		for i, b := range bodies {
			want, err := anthropic.DecodeRequest(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Call).To(Equal(want))
			Expect(got[i].Reused).To(Equal(3))
		}
		Expect(prev.Call.Messages).To(HaveLen(3), "the one read against is unchanged")
	})

	It("reads every request against any earlier one alike", func() {
		bodies := nexttest.Conversation(r, 40, func(step int) string { return randomMessage(r, step) }, func(m []string) []byte { return msgsBody(nextHead, m, nextTail) })
		nexttest.Pairs(r, bodies, 300, func(a, b []byte) {
			if prev, err := anthropic.DecodeNext(nil, a); err == nil {
				decodeBoth(prev, b)
			}
		})
	})
})
