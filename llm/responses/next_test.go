package responses_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/nexttest"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
)

// inputBody is a request body with these input items (JSON texts)
// between head and tail members.
func inputBody(head string, items []string, tail string) []byte {
	return []byte(head + `"input":[` + strings.Join(items, ",") + `]` + tail)
}

const (
	nextHead = `{"model":"gpt-x","instructions":"Be terse.",`
	nextTail = `,"tools":[{"type":"function","name":"lookup","description":"Look it up.","parameters":{"type":"object"}}],"store":false,"stream":true,"temperature":0.5}`
)

// nextTexts are the texts random items hold: plain, escaped, not UTF-8.
var nextTexts = []string{"hi", "", "a \"quoted\" <b>", "é😀", "\u2028", "line\nbreak", "\xff\xfe", `back\slash`}

// randomItem is one input item as agents send them: user, developer and
// assistant messages (a string or parts), function calls whose call ids
// later outputs name (or ids no call has, or ids used twice), their
// outputs, reasoning items, ids this run served, and items Decode refuses.
func randomItem(r *rand.Rand, step int) string {
	text := func() string {
		b, _ := json.Marshal(nextTexts[r.IntN(len(nextTexts))])
		return string(b)
	}
	switch r.IntN(9) {
	case 0:
		return `{"role":"user","content":` + text() + `}`
	case 1:
		return `{"type":"message","role":"user","content":[{"type":"input_text","text":` + text() + `}]}`
	case 2:
		return fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"f%d","arguments":"{\"k\": [1]}","status":"completed"}`, r.IntN(3), step%4, step)
	case 3:
		return fmt.Sprintf(`{"type":"message","id":"msg_%d","role":"assistant","status":"completed","phase":"final_answer","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, r.IntN(3), text())
	case 4:
		return fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":%s}`, r.IntN(5), text())
	case 5:
		return fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":%s}],"encrypted_content":"ZW5j"}`, r.IntN(3), text())
	case 6:
		return `{"role":"developer","content":` + text() + `}`
	case 7:
		return fmt.Sprintf(`{"type":"item_reference","id":"fc_%d"}`, r.IntN(3))
	}
	return []string{`{"role":"wizard","content":"x"}`, `{"type":"function_call","name":"f"}`, `{"type":"web_search_call"}`,
		`{"role":"user","content":5}`, `{"type":"function_call_output","output":"x"}`}[r.IntN(5)]
}

// servedRun is a Served that served a function call fc_0 (call_0, f) and
// an assistant message msg_1, stored, with meta the items sent back take.
func servedRun() *responses.Served {
	s := responses.NewServed()
	out := session.Message{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartToolCall, ID: "call_0", Name: "served_f", Arguments: "{}", Meta: json.RawMessage(`{"id":"fc_0"}`)},
		{Type: session.PartText, Text: "served", Meta: json.RawMessage(`{"id":"msg_1","phase":"commentary"}`)},
	}}
	s.Put("resp_1", nil, out, []string{"fc_0", "msg_1"}, true)
	return s
}

// decodeBoth reads body whole and against prev, and checks that both
// read the same request (or refuse it with the same error).
func decodeBoth(s *responses.Served, prev *responses.Next, body []byte) *responses.Next {
	GinkgoHelper()
	want, wantErr := s.Decode(body)
	got, err := s.DecodeNext(prev, body)
	if wantErr != nil {
		Expect(err).To(MatchError(wantErr.Error()), "%s", body)
		return nil
	}
	Expect(err).NotTo(HaveOccurred(), "%s", body)
	Expect(got.Decoded).To(Equal(want), "%s", body)
	return got
}

var _ = Describe("reading a session's Responses requests, each against the last", func() {
	r := rand.New(rand.NewPCG(7, 43))

	It("reads what Decode reads, only the new items when the last request's are repeated byte for byte", func() {
		s := servedRun()
		reused := 0
		for range 60 {
			var items []string
			var prev *responses.Next
			for step := range 30 {
				for range 1 + r.IntN(2) {
					items = append(items, randomItem(r, step))
				}
				d := decodeBoth(s, prev, inputBody(nextHead, items, nextTail))
				if d == nil {
					items, prev = nil, nil
					continue
				}
				if prev != nil && d.Reused > 0 {
					Expect(d.Reused).To(Equal(len(prev.Decoded.Messages)), "the last request's messages are taken as read")
					Expect(d.Decoded.Messages[:d.Reused]).To(Equal(prev.Decoded.Messages))
					Expect(d.SameRest).To(BeTrue())
					reused += d.Reused
				}
				prev = d
			}
		}
		Expect(reused).To(BeNumerically(">", 500))
	})

	It("reads a growing conversation of an agent that sends its items back, reusing all of the last request's", func() {
		s := responses.NewServed()
		items := []string{`{"role":"user","content":"Which release?"}`}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		for i := range 10 {
			items = append(items,
				fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"ZQ=="}`, i),
				fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"lookup","arguments":"{}"}`, i, i))
			d := decodeBoth(s, prev, inputBody(nextHead, items, nextTail))
			Expect(d.Reused).To(Equal(len(prev.Decoded.Messages)))
			items = append(items, fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"v%d"}`, i, i))
			prev = decodeBoth(s, d, inputBody(nextHead, items, nextTail))
			Expect(prev.Reused).To(Equal(len(d.Decoded.Messages)))
			Expect(prev.Decoded.Messages[len(prev.Decoded.Messages)-1].Content[0].Name).To(Equal("lookup"))
		}
		Expect(prev.Decoded.Messages).To(HaveLen(21))
	})

	It("reads a request whose earlier items changed whole, however little they changed", func() {
		s := responses.NewServed()
		items := []string{`{"role":"user","content":"Which release?"}`,
			`{"type":"function_call","call_id":"call_1","name":"lookup","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"call_1","output":"v2.4.1"}`}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		for i, edit := range []func([]string){
			func(m []string) { m[2] = strings.Replace(m[2], "v2.4.1", "v2.4.2", 1) },
			func(m []string) { m[0] = strings.Replace(m[0], "Which", "which", 1) },
			func(m []string) { m[1] = strings.Replace(m[1], `"name":"lookup"`, `"name":"lookuq"`, 1) }, // a name a later output takes
			func(m []string) { m[2] = strings.Replace(m[2], `"output":"v2.4.1"}`, `"output":"v2.4.1" }`, 1) },
		} {
			next := append([]string(nil), items...)
			edit(next)
			next = append(next, `{"role":"user","content":"And the owner?"}`)
			Expect(decodeBoth(s, prev, inputBody(nextHead, next, nextTail)).Reused).To(BeZero(), "edit %d", i)
		}
		Expect(decodeBoth(s, prev, inputBody(nextHead, items[:2], nextTail)).Reused).To(BeZero())
	})

	It("names a new function_call_output after the latest earlier call with its call id, in the items it repeats or in the new ones", func() {
		s := servedRun()
		items := []string{
			`{"type":"function_call","call_id":"c1","name":"first","arguments":"{}"}`,
			`{"type":"function_call","call_id":"c1","name":"second","arguments":"{}"}`,
			`{"role":"user","content":"wait"}`,
			`{"type":"item_reference","id":"fc_0"}`,
		}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		items = append(items, `{"type":"function_call_output","call_id":"c1","output":"a"}`,
			`{"type":"function_call_output","call_id":"call_0","output":"b"}`,
			`{"type":"function_call_output","call_id":"c9","output":"c"}`,
			`{"type":"function_call","call_id":"c1","name":"third","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"c1","output":"d"}`)
		d := decodeBoth(s, prev, inputBody(nextHead, items, nextTail))
		Expect(d.Reused).To(Equal(3))
		names := []string{}
		for _, m := range d.Decoded.Messages[3:] {
			if m.Role == session.RoleTool {
				names = append(names, m.Content[0].Name)
			}
		}
		Expect(names).To(Equal([]string{"second", "served_f", "", "third"}))
	})

	It("reads whole a request whose first new output item joins the last request's last message", func() {
		s := responses.NewServed()
		items := []string{`{"role":"user","content":"hi"}`, `{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}]}`}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		for _, more := range []string{
			`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`,
			`{"role":"assistant","content":"said"}`,
			`{"type":"reasoning","summary":[]}`,
		} {
			d := decodeBoth(s, prev, inputBody(nextHead, append(items[:2:2], more), nextTail))
			Expect(d.Reused).To(BeZero(), more)
			Expect(d.Decoded.Messages).To(HaveLen(2))
		}
		d := decodeBoth(s, prev, inputBody(nextHead, append(items[:2:2], `{"role":"developer","content":"x"}`, `{"role":"assistant","content":"said"}`), nextTail))
		Expect(d.Reused).To(Equal(2), "a developer message ends the assistant message")
		Expect(d.Decoded.System).To(Equal("Be terse.\n\nx"))
	})

	It("reads whole a request whose reused items the run's served items now answer otherwise", func() {
		s := responses.NewServed()
		items := []string{`{"role":"user","content":"hi"}`, `{"type":"function_call","id":"fc_9","call_id":"c","name":"f","arguments":"{}"}`}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		out := session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: "c", Name: "f", Meta: json.RawMessage(`{"id":"fc_9","x":1}`)}}}
		s.Put("resp_9", nil, out, []string{"fc_9"}, false)
		items = append(items, `{"type":"function_call_output","call_id":"c","output":"v"}`)
		d := decodeBoth(s, prev, inputBody(nextHead, items, nextTail))
		Expect(d.Reused).To(BeZero())
		Expect(string(d.Decoded.Messages[1].Content[0].Meta)).To(Equal(`{"id":"fc_9","x":1}`))
		items = append(items, `{"role":"user","content":"more"}`)
		Expect(decodeBoth(s, d, inputBody(nextHead, items, nextTail)).Reused).To(Equal(3))
	})

	It("reads the other members again when their bytes changed: the instructions, the tools, the model, a setting", func() {
		s := responses.NewServed()
		items := []string{`{"role":"user","content":"hi"}`, `{"role":"developer","content":"dev"}`, `{"role":"assistant","content":"hello"}`}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		items = append(items, `{"role":"user","content":"bye"}`)
		for _, change := range [][2]string{
			{`"Be terse."`, `"Be brief."`},
			{`"instructions":"Be terse.",`, ``},
			{`"name":"lookup"`, `"name":"search"`},
			{`,"stream":true`, `,"tools":null`},
			{`"gpt-x"`, `"gpt-y"`},
			{`"store":false`, `"store":true`},
			{`"temperature":0.5`, `"temperature":0.7,"top_p":1`},
		} {
			body := strings.Replace(string(inputBody(nextHead, items, nextTail)), change[0], change[1], 1)
			d := decodeBoth(s, prev, []byte(body))
			Expect(d.Reused).To(Equal(2), change[1])
			Expect(d.SameRest).To(BeFalse(), change[1])
			after := decodeBoth(s, d, []byte(strings.Replace(body, `"bye"}`, `"bye"},{"role":"assistant","content":"ok"}`, 1)))
			Expect(after.Reused).To(Equal(3))
			Expect(after.SameRest).To(BeTrue())
		}
	})

	DescribeTable("reads a body of another shape whole, with Decode's result or error",
		func(head string, more []string, tail string) {
			s := servedRun()
			items := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`}
			prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
			if d := decodeBoth(s, prev, inputBody(head, append(items, more...), tail)); d != nil {
				Expect(d.Reused).To(BeZero())
			}
		},
		Entry("a new item of a role the API has not", nextHead, []string{`{"role":"wizard","content":"x"}`}, nextTail),
		Entry("a new item of a type not served", nextHead, []string{`{"type":"web_search_call"}`}, nextTail),
		Entry("a new item that is not JSON", nextHead, []string{`{"role":"user","content":"x"`}, nextTail),
		Entry("a new item that is null", nextHead, []string{`null`}, nextTail),
		Entry("a reference to no served item", nextHead, []string{`{"type":"item_reference","id":"nope"}`}, nextTail),
		Entry("a trailing comma", nextHead, []string{`{"role":"user","content":"x"},`}, nextTail),
		Entry("input twice", nextHead, []string{`{"role":"user","content":"x"}`}, `,"input":[]}`),
		Entry("input in other case after", nextHead, nil, `,"Input":[{"role":"user","content":"y"}]}`),
		Entry("input in other case before", `{"INPUT":[],`, nil, nextTail),
		Entry("a name with escapes", `{"m\u006fdel":"z",`, nil, nextTail),
		Entry("input named with escapes", nextHead, nil, `,"\u0069nput":"x"}`),
		Entry("a member of the wrong type", `{"model":5,`, nil, nextTail),
		Entry("a conversation", nextHead, nil, `,"conversation":"conv_1"}`),
		Entry("a previous response", nextHead, nil, `,"previous_response_id":"resp_1"}`),
		Entry("a previous response never served", nextHead, nil, `,"previous_response_id":"resp_0"}`),
		Entry("a tool without a name", nextHead, nil, `,"tools":[{"type":"function"}]}`),
		Entry("something after the object", nextHead, nil, nextTail+` {}`),
		Entry("the object unclosed", nextHead, nil, `,"stream":true`),
	)

	It("reads an input that is a string whole, and the request after it too", func() {
		s := responses.NewServed()
		prev := decodeBoth(s, nil, []byte(`{"model":"m","input":"hi"}`))
		d := decodeBoth(s, prev, []byte(`{"model":"m","input":"hi"}`))
		Expect(d.Reused).To(BeZero())
		d = decodeBoth(s, d, []byte(`{"model":"m","input":[{"role":"user","content":"hi"}]}`))
		Expect(d.Reused).To(BeZero())
		Expect(decodeBoth(s, d, []byte(`{"model":"m","input":"hi"}`)).Reused).To(BeZero())
	})

	It("reads every request of a chain by previous_response_id whole: its conversation is what the run keeps", func() {
		s := servedRun()
		body := `{"model":"m","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"call_0","output":"v"}]}`
		prev := decodeBoth(s, nil, []byte(body))
		d := decodeBoth(s, prev, []byte(strings.Replace(body, `"v"}`, `"v"},{"role":"user","content":"more"}`, 1)))
		Expect(d.Reused).To(BeZero())
		Expect(d.Decoded.Messages[1].Content[0].Name).To(Equal("served_f"))
	})

	It("reads two requests against the same one alike, at the same time: one grows its messages in place, the other copies them", func() {
		s := responses.NewServed()
		items := []string{`{"role":"user","content":"hi"}`, `{"type":"function_call","call_id":"t","name":"f","arguments":"{}"}`, `{"role":"user","content":"wait"}`}
		prev := decodeBoth(s, nil, inputBody(nextHead, items, nextTail))
		bodies := [][]byte{
			inputBody(nextHead, append(items[:3:3], `{"type":"function_call_output","call_id":"t","output":"one"}`), nextTail),
			inputBody(nextHead, append(items[:3:3], `{"role":"assistant","content":"two"}`), nextTail),
		}
		got, errs := nexttest.AtOnce(bodies, func(b []byte) (*responses.Next, error) { return s.DecodeNext(prev, b) })
		Expect(errs).To(HaveEach(Succeed()))
		for i, b := range bodies {
			want, err := s.Decode(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Decoded).To(Equal(want))
			Expect(got[i].Reused).To(Equal(3))
		}
		Expect(prev.Decoded.Messages).To(HaveLen(3), "the one read against is unchanged")
	})

	It("reads every request against any earlier one alike", func() {
		s := servedRun()
		bodies := nexttest.Conversation(r, 40, func(step int) string { return randomItem(r, step) }, func(m []string) []byte { return inputBody(nextHead, m, nextTail) })
		nexttest.Pairs(r, bodies, 300, func(a, b []byte) {
			if prev, err := s.DecodeNext(nil, a); err == nil {
				decodeBoth(s, prev, b)
			}
		})
	})
})
