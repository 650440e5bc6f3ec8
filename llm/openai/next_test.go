package openai_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/nexttest"
	"github.com/agentsnap/agentsnap/llm/openai"
)

// chatBody is a request body with these messages (JSON texts) between
// head and tail members.
func chatBody(head string, msgs []string, tail string) []byte {
	return []byte(head + `"messages":[` + strings.Join(msgs, ",") + `]` + tail)
}

const (
	bodyHead = `{"model":"gpt-x",`
	bodyTail = `,"stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`
)

// randomMessage is one message of a conversation as agents send them:
// every role, content as a string, an array of parts or null, reasoning,
// tool calls whose ids later tool messages name (or ids no call has).
func randomMessage(r *rand.Rand, step int) string {
	text := func() string { return marshal(randomString(r)) }
	switch r.IntN(7) {
	case 0:
		return `{"role":"user","content":` + text() + `}`
	case 1:
		return `{"role":"user","content":[{"type":"text","text":` + text() + `},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}`
	case 2:
		return fmt.Sprintf(`{"role":"assistant","content":null,"reasoning_content":%s,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"f%d","arguments":"{}"}}]}`, text(), step%4, step)
	case 3:
		return `{"role":"assistant","content":` + text() + `}`
	case 4:
		return fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":%s}`, r.IntN(5), text())
	case 5:
		return `{"role":"system","content":` + text() + `}`
	}
	return `{"role":"developer","content":[{"type":"text","text":` + text() + `}]}`
}

// decodeBoth reads body whole and against prev, and checks that both
// read the same call (or refuse it with the same error).
func decodeBoth(prev *openai.Decoded, body []byte) *openai.Decoded {
	GinkgoHelper()
	want, wantErr := openai.DecodeRequest(body)
	got, err := openai.DecodeNext(prev, body)
	if wantErr != nil {
		Expect(err).To(MatchError(wantErr.Error()), "%s", body)
		return nil
	}
	Expect(err).NotTo(HaveOccurred(), "%s", body)
	Expect(got.Call).To(Equal(want), "%s", body)
	return got
}

var _ = Describe("reading a session's requests, each against the last", func() {
	r := rand.New(rand.NewPCG(22, 19))

	It("reads what DecodeRequest reads, only the new messages when the last request's are repeated byte for byte", func() {
		for range 50 {
			var msgs []string
			var prev *openai.Decoded
			for step := range 30 {
				for range 1 + r.IntN(2) {
					msgs = append(msgs, randomMessage(r, step))
				}
				d := decodeBoth(prev, chatBody(bodyHead, msgs, bodyTail))
				if d == nil {
					msgs, prev = nil, nil
					continue
				}
				if prev != nil {
					Expect(d.Reused).To(Equal(len(prev.Call.Messages)), "the last request's messages are taken as read")
					Expect(d.SameRest).To(BeTrue())
				}
				prev = d
			}
		}
	})

	It("reads a request whose earlier messages changed whole, however little they changed", func() {
		msgs := []string{`{"role":"user","content":"Which release?"}`,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"release\"}"}}]}`,
			`{"role":"tool","tool_call_id":"call_1","content":"v2.4.1"}`}
		prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
		for i, edit := range []func([]string){
			func(m []string) { m[2] = strings.Replace(m[2], "v2.4.1", "v2.4.2", 1) },                   // the last message
			func(m []string) { m[0] = strings.Replace(m[0], "Which", "which", 1) },                     // the first
			func(m []string) { m[1] = strings.Replace(m[1], `"name":"lookup"`, `"name":"lookuq"`, 1) }, // a name a later result takes
			func(m []string) { m[2] = strings.Replace(m[2], `"content":"v2.4.1"}`, `"content":"v2.4.1" }`, 1) },
		} {
			next := append([]string(nil), msgs...)
			edit(next)
			next = append(next, `{"role":"user","content":"And the owner?"}`)
			d := decodeBoth(prev, chatBody(bodyHead, next, bodyTail))
			Expect(d.Reused).To(BeZero(), "edit %d", i)
		}
		fewer := decodeBoth(prev, chatBody(bodyHead, msgs[:2], bodyTail))
		Expect(fewer.Reused).To(BeZero())
	})

	It("names a new tool result after the latest earlier call with its id, in the messages it repeats or in the new ones", func() {
		msgs := []string{
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"first","arguments":"{}"}},{"id":"c1","type":"function","function":{"name":"second","arguments":"{}"}}]}`,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"other","arguments":"{}"}}]}`,
		}
		prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
		msgs = append(msgs, `{"role":"tool","tool_call_id":"c1","content":"a"}`, `{"role":"tool","tool_call_id":"c9","content":"b"}`,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"third","arguments":"{}"}}]}`,
			`{"role":"tool","tool_call_id":"c1","content":"c"}`)
		d := decodeBoth(prev, chatBody(bodyHead, msgs, bodyTail))
		Expect(d.Reused).To(Equal(2))
		Expect(d.Call.Messages[2].Content[0].Name).To(Equal("second"))
		Expect(d.Call.Messages[3].Content[0].Name).To(BeEmpty())
		Expect(d.Call.Messages[5].Content[0].Name).To(Equal("third"))
	})

	It("reads the other members again when their bytes changed, and joins the system prompt with new system messages", func() {
		msgs := []string{`{"role":"system","content":"Be terse."}`, `{"role":"user","content":"hi"}`}
		prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
		msgs = append(msgs, `{"role":"assistant","content":"hello"}`, `{"role":"developer","content":"Be kind."}`, `{"role":"user","content":"bye"}`)
		d := decodeBoth(prev, chatBody(`{"model":"gpt-y","temperature":0.5,`, msgs, `}`))
		Expect(d.Reused).To(Equal(1))
		Expect(d.SameRest).To(BeFalse())
		Expect(d.Call.System).To(Equal("Be terse.\n\nBe kind."))
		Expect(d.Call.Model).To(Equal("gpt-y"))
		Expect(string(d.Call.Members["temperature"])).To(Equal("0.5"))

		msgs = append(msgs, `{"role":"assistant","content":"ok"}`)
		after := decodeBoth(d, chatBody(`{"model":"gpt-y","temperature":0.5,`, msgs, `,"stream":true}`))
		Expect(after.SameRest).To(BeFalse(), "a member after the messages changed")
		Expect(after.Call.Stream).To(BeTrue())
	})

	DescribeTable("reads a body of another shape whole, with DecodeRequest's result or error",
		func(head string, more []string, tail string) {
			msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`}
			prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
			d := decodeBoth(prev, chatBody(head, append(msgs, more...), tail))
			if d != nil {
				Expect(d.Reused).To(BeZero())
			}
		},
		Entry("a new message of a role no API has", bodyHead, []string{`{"role":"wizard","content":"x"}`}, bodyTail),
		Entry("a new message of the wrong type", bodyHead, []string{`{"role":"tool","tool_call_id":5}`}, bodyTail),
		Entry("a new message that is not JSON", bodyHead, []string{`{"role":"user","content":"x"`}, bodyTail),
		Entry("a new message that is null", bodyHead, []string{`null`}, bodyTail),
		Entry("a trailing comma", bodyHead, []string{`{"role":"user","content":"x"},`}, bodyTail),
		Entry("messages twice", bodyHead, []string{`{"role":"user","content":"x"}`}, `,"messages":[]}`),
		Entry("messages in other case after", bodyHead, nil, `,"Messages":[{"role":"user","content":"y"}]}`),
		Entry("messages in other case before", `{"MESSAGES":[],`, nil, bodyTail),
		Entry("a name with escapes", `{"m\u006fdel":"z",`, nil, bodyTail),
		Entry("a member of the wrong type", `{"model":5,`, nil, bodyTail),
		Entry("something after the object", bodyHead, nil, bodyTail+` {}`),
		Entry("members without a comma", bodyHead, nil, ` "stream":true}`),
		Entry("a trailing comma among the members", bodyHead, nil, `,"stream":true,}`),
		Entry("the object unclosed", bodyHead, nil, `,"stream":true`),
		// Read alone, the message nests three levels less than in the body:
		// within encoding/json's limit alone, past it in the body.
		Entry("a new message nested past encoding/json's limit in the body", bodyHead,
			[]string{`{"role":"user","content":[{"type":"text","text":"x","extra":` + strings.Repeat("[", 9996) + strings.Repeat("]", 9996) + `}]}`}, bodyTail),
	)

	It("reads a new message nested as deep as encoding/json reads in the body against the last request", func() {
		msgs := []string{`{"role":"user","content":"hi"}`}
		prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
		deep := `{"role":"user","content":[{"type":"text","text":"x","extra":` + strings.Repeat("[", 9995) + strings.Repeat("]", 9995) + `}]}`
		Expect(decodeBoth(prev, chatBody(bodyHead, append(msgs, deep), bodyTail)).Reused).To(Equal(1))
	})

	It("reads two requests against the same one alike, at the same time: one grows its messages in place, the other copies them", func() {
		msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`}
		prev := decodeBoth(nil, chatBody(bodyHead, msgs, bodyTail))
		bodies := [][]byte{
			chatBody(bodyHead, append(msgs[:2:2], `{"role":"user","content":"one"}`), bodyTail),
			chatBody(bodyHead, append(msgs[:2:2], `{"role":"user","content":"two"}`, `{"role":"user","content":"three"}`), bodyTail),
		}
		got, errs := nexttest.AtOnce(bodies, func(b []byte) (*openai.Decoded, error) { return openai.DecodeNext(prev, b) })
		Expect(errs).To(HaveEach(Succeed()))
		for i, b := range bodies {
			want, err := openai.DecodeRequest(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Call).To(Equal(want))
			Expect(got[i].Reused).To(Equal(2))
		}
		Expect(prev.Call.Messages).To(HaveLen(2), "the one read against is unchanged")
	})

	It("reads a string content as encoding/json does, with or without escapes, in UTF-8 or not", func() {
		var raws []string
		for range 2000 {
			s := randomString(r)
			raws = append(raws, marshal(s), `"`+s+`"`, ` "`+s+`" `)
		}
		raws = append(raws, `"abc`, `"a"b"`, `"\x"`, `"\u12"`, "\"\t\"", `"\u00e9\ud83d\ude00"`)
		for _, raw := range raws {
			var want string
			wantErr := json.Unmarshal([]byte(raw), &want)
			got, err := openai.ContentText([]byte(raw))
			Expect(err != nil).To(Equal(wantErr != nil), "%q: %v, encoding/json %v", raw, err, wantErr)
			Expect(got).To(Equal(want), "%q", raw)
		}
	})

	It("reads every request against any earlier one alike", func() {
		bodies := nexttest.Conversation(r, 40, func(step int) string { return randomMessage(r, step) }, func(m []string) []byte { return chatBody(bodyHead, m, bodyTail) })
		nexttest.Pairs(r, bodies, 200, func(a, b []byte) {
			if prev, err := openai.DecodeNext(nil, a); err == nil {
				decodeBoth(prev, b)
			}
		})
	})
})
