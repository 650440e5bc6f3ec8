package responses_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
)

// chainBody is a request that continues response prev with these items,
// stored (the default), so that it may be continued in turn.
func chainBody(prev string, items ...string) []byte {
	in := ""
	for i, it := range items {
		if i > 0 {
			in += ","
		}
		in += it
	}
	return []byte(`{"model":"gpt-x","instructions":"Be terse.","previous_response_id":"` + prev + `","input":[` + in + `],"stream":true}`)
}

// callAnswer is an answer that calls lookup with call id id.
func callAnswer(id string) session.Message {
	return session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: id, Name: "lookup", Arguments: "{}"}}}
}

// output is a function_call_output item for call id.
func output(id, text string) string {
	return fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":%q}`, id, text)
}

// startChain reads an agent's first request, of five messages (whose slice
// has room after them, as a growing one has), and keeps its answer as
// resp_0.
func startChain(s *responses.Served) *responses.Next {
	GinkgoHelper()
	first := decodeBoth(s, nil, []byte(`{"model":"gpt-x","instructions":"Be terse.","input":[{"role":"user","content":"Which release?"},`+
		`{"role":"assistant","content":"Which one?"},{"role":"user","content":"The current."},{"role":"assistant","content":"Of what?"},`+
		`{"role":"user","content":"Of the product."}],"stream":true}`))
	Expect(first.Decoded.Messages).To(HaveLen(5))
	s.PutNext("resp_0", first, callAnswer("call_0"), nil, true)
	return first
}

var _ = Describe("a chain of Responses requests by previous_response_id", func() {
	It("reads a request against the one whose answer it continues: that request's messages come first, the same values, and the outputs take their calls' names", func() {
		s := responses.NewServed()
		prev := startChain(s)
		for i := 1; i <= 20; i++ {
			d := decodeBoth(s, prev, chainBody(fmt.Sprintf("resp_%d", i-1), output(fmt.Sprintf("call_%d", i-1), fmt.Sprint("v", i))))
			if i == 1 {
				// The first request sent its items: the response to it keeps
				// no request (nor its body), and the chain copies once.
				Expect(d.Reused).To(BeZero())
			} else {
				Expect(d.Reused).To(Equal(len(prev.Decoded.Messages)), "link %d", i)
			}
			Expect(d.Decoded.Messages[:len(prev.Decoded.Messages)]).To(Equal(prev.Decoded.Messages))
			msgs := d.Decoded.Messages
			Expect(msgs).To(HaveLen(5 + 2*i))
			Expect(msgs[len(msgs)-2]).To(Equal(callAnswer(fmt.Sprintf("call_%d", i-1))))
			Expect(msgs[len(msgs)-1].Content[0].Name).To(Equal("lookup"))
			s.PutNext(fmt.Sprintf("resp_%d", i), d, callAnswer(fmt.Sprintf("call_%d", i)), nil, true)
			prev = d
		}
	})

	It("reuses nothing of a request whose answer it does not continue: an earlier one, or none", func() {
		s := responses.NewServed()
		first := startChain(s)
		second := decodeBoth(s, first, chainBody("resp_0", output("call_0", "v")))
		s.PutNext("resp_1", second, callAnswer("call_1"), nil, true)
		Expect(decodeBoth(s, second, chainBody("resp_0", output("call_0", "again"))).Reused).To(BeZero(), "an earlier response")
		Expect(decodeBoth(s, nil, chainBody("resp_1", output("call_1", "v"))).Reused).To(BeZero(), "no request to read against")
		s.Put("resp_9", second.Decoded.Messages, callAnswer("call_9"), nil, true)
		Expect(decodeBoth(s, second, chainBody("resp_9", output("call_9", "v"))).Reused).To(BeZero(), "kept by Put: from no request")
	})

	It("gives each request that continues the same response its own conversation", func() {
		s := responses.NewServed()
		second := decodeBoth(s, startChain(s), chainBody("resp_0", output("call_0", "v")))
		s.PutNext("resp_1", second, callAnswer("call_1"), nil, true)
		Expect(second.Decoded.Messages).To(HaveLen(7))
		a := decodeBoth(s, second, chainBody("resp_1", output("call_1", "a")))
		b := decodeBoth(s, second, chainBody("resp_1", `{"role":"user","content":"b"}`))
		c := decodeBoth(s, second, chainBody("resp_1", output("call_1", "c"), `{"role":"user","content":"more"}`))
		Expect(a.Decoded.Messages[8].Content[0].Content[0].Text).To(Equal("a"))
		Expect(b.Decoded.Messages[8].Content[0].Text).To(Equal("b"))
		Expect(c.Decoded.Messages[8].Content[0].Content[0].Text).To(Equal("c"))
		Expect(c.Decoded.Messages[9].Content[0].Text).To(Equal("more"))
		Expect(a.Decoded.Messages).To(HaveLen(9))
		Expect(second.Decoded.Messages).To(HaveLen(7))
	})

	It("keeps no request that sent its items, nor the conversation of a response served with store false", func() {
		s := responses.NewServed()
		first := startChain(s) // sent its items; resp_0 keeps its messages, not the request
		d := decodeBoth(s, first, chainBody("resp_0", output("call_0", "v")))
		Expect(d.Reused).To(BeZero())
		Expect(d.Decoded.Messages[:5]).To(Equal(first.Decoded.Messages))
		s.PutNext("resp_x", d, callAnswer("call_x"), []string{"fc_x"}, false)
		_, err := s.Conversation("resp_x")
		Expect(err).To(MatchError(ContainSubstring("store: false")))
		_, ok := s.Recorded("fc_x")
		Expect(ok).To(BeTrue(), "its items are still known, for an agent that sends them back")
	})

	It("costs the same a call however long the chain grows: the conversation is not copied", func() {
		s := responses.NewServed()
		prev := startChain(s)
		link := func(i int) {
			d, err := s.DecodeNext(prev, chainBody(fmt.Sprintf("resp_%d", i-1), output(fmt.Sprintf("call_%d", i-1), "v")))
			Expect(err).NotTo(HaveOccurred())
			s.PutNext(fmt.Sprintf("resp_%d", i), d, callAnswer(fmt.Sprintf("call_%d", i)), nil, true)
			prev = d
		}
		for i := 1; i <= 300; i++ {
			link(i)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 301; i <= 400; i++ {
			link(i)
		}
		runtime.ReadMemStats(&after)
		// Copying 600-800 messages a call would be 24-32 KB of them alone.
		perCall := (after.TotalAlloc - before.TotalAlloc) / 100
		Expect(perCall).To(BeNumerically("<", 12<<10), "bytes allocated a call at 600-800 messages")
	})
})

var _ = Describe("a chained Responses request read against the last, chained too", func() {
	// chained reads a chain of requests, each continuing the answer to
	// the one before, made by body: the first continues resp_0, answered
	// (a call of lookup) to a first request read whole.
	chained := func(s *responses.Served, links int, body func(i int) []byte) []*responses.Next {
		GinkgoHelper()
		first := decodeBoth(s, nil, []byte(`{"model":"gpt-x","instructions":"Be terse.","input":"Which release?","stream":true}`))
		s.PutNext("resp_0", first, callAnswer("call_0"), nil, true)
		reads := []*responses.Next{first}
		for i := 1; i <= links; i++ {
			d := decodeBoth(s, reads[i-1], body(i))
			Expect(d).NotTo(BeNil())
			if d.Decoded.Store {
				s.PutNext(fmt.Sprintf("resp_%d", i), d, callAnswer(fmt.Sprintf("call_%d", i)), nil, true)
			}
			reads = append(reads, d)
		}
		return reads
	}
	link := func(i int) (string, string) {
		return fmt.Sprintf("resp_%d", i-1), output(fmt.Sprintf("call_%d", i-1), fmt.Sprint("v", i))
	}

	It("reuses all but the input and the conversation when the rest is the last request's, byte for byte", func() {
		s := responses.NewServed()
		const head = `{"model":"gpt-x", "instructions":"Be terse.","tools":[{"type":"function","name":"lookup","strict":true,"parameters":{}}],`
		reads := chained(s, 12, func(i int) []byte {
			prev, out := link(i)
			in := out
			switch i % 3 {
			case 1:
				in += `,{"role":"developer","content":"Mind the version."}`
			case 2:
				in += `,{"role":"user","content":"And then?"},{"role":"system","content":"Be brief."}`
			}
			return []byte(head + `"input":[` + in + `] ,"previous_response_id": "` + prev + `","temperature":0.2,"stream":true}`)
		})
		for i, d := range reads[2:] {
			Expect(d.SameRest).To(BeTrue(), "link %d", i+2)
			Expect(d.Reused).To(Equal(len(reads[i+1].Decoded.Messages)), "link %d", i+2)
			Expect(d.Decoded.Tools).To(HaveLen(1))
			Expect(d.Decoded.Settings).To(HaveKey("temperature"))
		}
		Expect(reads[4].Decoded.System).To(Equal("Be terse.\n\nMind the version."), "this request's developer texts, not the chain's")
		Expect(reads[5].Decoded.System).To(Equal("Be terse.\n\nBe brief."))
		Expect(reads[6].Decoded.System).To(Equal("Be terse."))
	})

	It("reads a request whole when a member but input and previous_response_id changed, however little", func() {
		s := responses.NewServed()
		rests := []string{
			`"model":"gpt-x","instructions":"Be terse.","stream":true`,
			`"model":"gpt-x","instructions":"Be terser.","stream":true`,
			`"model":"gpt-y","instructions":"Be terser.","stream":true`,
			`"model":"gpt-y","instructions":"Be terser.","stream":false`,
			`"model":"gpt-y","instructions":"Be terser.","stream":false,"tools":[{"type":"function","name":"lookup"}]`,
			`"model":"gpt-y","instructions":"Be terser.","stream":false,"tools":[{"type":"function","name":"look"}]`,
			`"model":"gpt-y","instructions":"Be terser.","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1`,
			`"model":"gpt-y","instructions":"Be terser.","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1.0`,
			`"model":"gpt-y","instructions":"Be terser.","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1.0,"store":true`,
			`"model":"gpt-y","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1.0,"store":true`,
			`"model":"gpt-y","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1.0,"store":true`,
			`"model":"gpt-y","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1.0,"store":true `,
			`"model":"gpt-y","stream":false,"tools":[{"type":"function","name":"look"}],"temperature":1.0,"store":false`,
		}
		reads := chained(s, len(rests), func(i int) []byte {
			prev, out := link(i)
			return []byte(`{"previous_response_id":"` + prev + `","input":[` + out + `],` + rests[i-1] + `}`)
		})
		for i, d := range reads[2:] {
			Expect(d.SameRest).To(Equal(rests[i+1] == rests[i]), "link %d: %s", i+2, rests[i+1])
			Expect(d.Reused).To(Equal(len(reads[i+1].Decoded.Messages)), "link %d", i+2)
		}
		Expect(reads[len(reads)-1].Decoded.Store).To(BeFalse())
	})

	It("reads a request of any other shape whole, as Decode does, or refuses it with Decode's error", func() {
		s := responses.NewServed()
		first := decodeBoth(s, nil, []byte(`{"model":"gpt-x","input":"Which release?"}`))
		s.PutNext("resp_0", first, callAnswer("call_0"), nil, true)
		prev := decodeBoth(s, first, []byte(`{"model":"gpt-x","previous_response_id":"resp_0","input":[`+output("call_0", "v")+`]}`))
		s.PutNext("resp_1", prev, callAnswer("call_1"), nil, true)
		Expect(decodeBoth(s, prev, []byte(`{"model":"gpt-x","previous_response_id":"resp_1","input":[`+output("call_1", "v")+`]}`)).SameRest).To(BeTrue())
		for _, body := range []string{
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"previous_response_id":"resp_0"}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"Previous_Response_ID":"resp_0"}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"previou` + "\u017f" + `_response_id":"resp_0"}`, // ſ folds to s
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"previous_response_i\u0064":"resp_0"}`,
			`{"model":"gpt-x","previous_response_i\u0064":"resp_1","input":[` + output("call_1", "v") + `]}`,
			`{"model":"gpt-x","previous_response_id":"resp_\u0031","input":[` + output("call_1", "v") + `]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":"And then?"}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":null}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"input":[]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"INPUT":[]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"conversation":"conv_1"}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],"conversation":null}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[{"role":"wizard","content":"x"}]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `],}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `]} x`,
			`{"model":"gpt-x","previous_response_id":"resp_9","input":[` + output("call_1", "v") + `]}`,
			`{"model":"gpt-x","previous_response_id":"","input":[` + output("call_1", "v") + `]}`,
			`{"model":"gpt-x","previous_response_id":null,"input":[` + output("call_1", "v") + `]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1` + "\xff" + `","input":[` + output("call_1", "v") + `]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[5]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[` + output("call_1", "v") + `,]}`,
			`{"model":"gpt-x","previous_response_id":"resp_1","input":[]}`,
			`{"model":"gpt-x","input":[` + output("call_1", "v") + `],"previous_response_id":"resp_1"}`,
		} {
			d := decodeBoth(s, prev, []byte(body))
			if d != nil && d.SameRest {
				Expect(body).To(HavePrefix(`{"model":"gpt-x","previous_response_id":"resp_1","input":[`), "only the plain shape reuses the rest")
			}
		}
	})

	It("reads whole a chain whose every request holds a member encoding/json takes for input or previous_response_id", func() {
		for _, odd := range []string{
			`,"Previous_Response_ID":"resp_0"`,
			`,"previou` + "\u017f" + `_response_id":"resp_0"`, // ſ folds to s
			`,"previous_response_i\u0064":"resp_0"`,
			`,"previous_response_id":"resp_0"`,
			`,"INPUT":[{"role":"user","content":"x"}]`,
			`,"\u0069nput":[{"role":"user","content":"x"}]`,
			`,"input":[{"role":"user","content":"x"}]`,
			`,"conversation":null`,
		} {
			s := responses.NewServed()
			first := decodeBoth(s, nil, []byte(`{"model":"gpt-x","input":"Which release?"}`))
			s.PutNext("resp_0", first, callAnswer("call_0"), nil, true)
			prev := decodeBoth(s, first, []byte(`{"model":"gpt-x","previous_response_id":"resp_0","input":[`+output("call_0", "v")+`]`+odd+`}`))
			Expect(prev).NotTo(BeNil(), odd)
			s.PutNext("resp_1", prev, callAnswer("call_1"), nil, true)
			d := decodeBoth(s, prev, []byte(`{"model":"gpt-x","previous_response_id":"resp_1","input":[`+output("call_1", "v")+`]`+odd+`}`))
			Expect(d).NotTo(BeNil(), odd)
			Expect(d.SameRest).To(BeFalse(), odd)
		}
	})

	It("reads a random tree of requests — chained or sending their items, branching, each read against the last before Decode reads it — as Decode does, and never changes a request's messages once read", func() {
		type node struct {
			n     *responses.Next
			items []string // a request that sends its items: them
			resp  string   // the response kept for it, if any
			snap  string   // its messages, encoded when read
		}
		for seed := range uint64(100) {
			r := rand.New(rand.NewPCG(seed, 1))
			s := responses.NewServed()
			var nodes []*node
			var resps []string
			for step := range 40 {
				item := func() string {
					switch r.IntN(4) {
					case 0:
						return fmt.Sprintf(`{"role":"user","content":"u%d"}`, step)
					case 1:
						return fmt.Sprintf(`{"type":"function_call_output","call_id":"c%d","output":"o%d"}`, r.IntN(step+1), step)
					case 2:
						return fmt.Sprintf(`{"type":"function_call","call_id":"c%d","name":"f%d","arguments":"{}"}`, step, step)
					}
					return fmt.Sprintf(`{"role":"assistant","content":"a%d"}`, step)
				}
				var prev *node
				if len(nodes) > 0 && r.IntN(5) > 0 {
					prev = nodes[len(nodes)-1]
					if r.IntN(2) == 0 {
						prev = nodes[r.IntN(len(nodes))]
					}
				}
				nd := &node{}
				var body string
				if len(resps) > 0 && r.IntN(2) == 0 {
					id := resps[r.IntN(len(resps))]
					if prev != nil && prev.resp != "" && r.IntN(2) == 0 {
						id = prev.resp
					}
					items := []string{item()}
					if r.IntN(2) == 0 {
						items = append(items, item())
					}
					body = `{"model":"m","previous_response_id":"` + id + `","input":[` + strings.Join(items, ",") + `],"stream":true}`
				} else {
					if prev != nil && prev.items != nil && r.IntN(4) > 0 {
						nd.items = append(nd.items, prev.items...)
					}
					nd.items = append(nd.items, item(), item())
					body = `{"model":"m","input":[` + strings.Join(nd.items, ",") + `],"stream":true}`
				}
				var against *responses.Next
				if prev != nil {
					against = prev.n
				}
				got, err := s.DecodeNext(against, []byte(body))
				want, wantErr := s.Decode([]byte(body))
				if wantErr != nil {
					Expect(err).To(MatchError(wantErr.Error()), "seed %d step %d", seed, step)
					continue
				}
				Expect(err).NotTo(HaveOccurred(), "seed %d step %d", seed, step)
				Expect(got.Decoded).To(Equal(want), "seed %d step %d: %s", seed, step, body)
				snap, _ := json.Marshal(got.Decoded.Messages)
				nd.n, nd.snap = got, string(snap)
				if r.IntN(4) > 0 {
					nd.resp = fmt.Sprintf("resp_%d", step)
					s.PutNext(nd.resp, got, callAnswer(fmt.Sprintf("c%d", step)), nil, true)
					resps = append(resps, nd.resp)
				}
				nodes = append(nodes, nd)
				if len(resps) > 0 && r.IntN(5) == 0 { // a caller of Conversation appends to what it is given
					if c, err := s.Conversation(resps[r.IntN(len(resps))]); err == nil {
						_ = append(c, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("junk")}})
					}
				}
				for i, nd := range nodes {
					now, _ := json.Marshal(nd.n.Decoded.Messages)
					Expect(string(now)).To(Equal(nd.snap), "seed %d step %d: request %d's messages changed", seed, step, i)
				}
			}
		}
	})

	It("gives each of the requests that continue one response at once its own conversation", func() {
		s := responses.NewServed()
		first := startChain(s)
		second := decodeBoth(s, first, chainBody("resp_0", output("call_0", "v")))
		s.PutNext("resp_1", second, callAnswer("call_1"), nil, true)
		got := make([]*responses.Next, 16)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				defer GinkgoRecover()
				n, err := s.DecodeNext(second, chainBody("resp_1", output("call_1", fmt.Sprint("o", i))))
				Expect(err).NotTo(HaveOccurred())
				got[i] = n
			})
		}
		wg.Wait()
		for i, n := range got {
			msgs := n.Decoded.Messages
			Expect(msgs).To(HaveLen(9))
			Expect(msgs[8].Content[0].Content[0].Text).To(Equal(fmt.Sprint("o", i)))
		}
	})
})
