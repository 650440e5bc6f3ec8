package anthropic_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/nexttest"
	"github.com/agentsnap/agentsnap/llm/anthropic"
)

// movingStep is message i of an agent's tool loop, its last block marked
// for the prompt cache when marked: a user turn, then an answer that
// calls lookup and the user message of its result, in turn.
func movingStep(i int, marked bool) string {
	cc := ""
	if marked {
		cc = `,"cache_control":{"type":"ephemeral"}`
	}
	switch {
	case i == 0:
		return `{"role":"user","content":[{"type":"text","text":"Who owns the release?"` + cc + `}]}`
	case i%2 == 1:
		return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"Step %d."},{"type":"tool_use","id":"toolu_%d","name":"lookup","input":{"n":%d}%s}]}`, i, i, i, cc)
	}
	return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"fact %d"%s}]}`, i-1, i, cc)
}

// movingBody is the request of an agent that sends n messages, those
// that marked says marked.
func movingBody(n int, marked func(i, n int) bool) []byte {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = movingStep(i, marked(i, n))
	}
	return msgsBody(nextHead, msgs, nextTail)
}

// breakpoints lists where msgs, a request's messages, have a
// cache_control: "message/block" and "message/block/content block",
// with the cache_control.
func breakpoints(msgs json.RawMessage) []string {
	GinkgoHelper()
	type block struct {
		CacheControl json.RawMessage `json:"cache_control"`
		Content      json.RawMessage `json:"content"`
	}
	var out []string
	blocks := func(raw json.RawMessage) []block {
		var bs []block
		if len(raw) > 0 && raw[0] == '[' {
			Expect(json.Unmarshal(raw, &bs)).To(Succeed())
		}
		return bs
	}
	var ms []block
	Expect(json.Unmarshal(msgs, &ms)).To(Succeed())
	for i, m := range ms {
		for j, b := range blocks(m.Content) {
			if b.CacheControl != nil {
				out = append(out, fmt.Sprintf("%d/%d %s", i, j, b.CacheControl))
			}
			for k, inner := range blocks(b.Content) {
				if inner.CacheControl != nil {
					out = append(out, fmt.Sprintf("%d/%d/%d %s", i, j, k, inner.CacheControl))
				}
			}
		}
	}
	return out
}

// marksBefore returns d's breakpoints on its first n messages.
func marksBefore(d *anthropic.Decoded, n int) []anthropic.Mark {
	var out []anthropic.Mark
	if d.Call.Cache != nil {
		for _, m := range d.Call.Cache.Marks {
			if m.Message < n {
				out = append(out, m)
			}
		}
	}
	return out
}

var _ = Describe("the prompt cache's breakpoints, moved by the agent", func() {
	// run reads the requests of an agent that sends 1, 3, 5, … messages,
	// marked as marked says, each against the last; it checks each call
	// is DecodeRequest's and the live request's messages are the agent's,
	// breakpoints and all, and returns how many were read whole.
	run := func(calls int, marked func(i, n int) bool) (whole int) {
		GinkgoHelper()
		var prev *anthropic.Decoded
		for c := range calls {
			body := movingBody(1+2*c, marked)
			d := decodeBoth(prev, body)
			var sent map[string]json.RawMessage
			Expect(json.Unmarshal(body, &sent)).To(Succeed())
			Expect(breakpoints(liveBody(d.Call, true)["messages"])).To(Equal(breakpoints(sent["messages"])), "call %d", c)
			if prev != nil && d.Reused == 0 {
				whole++
			}
			if prev != nil && d.Reused > 0 {
				Expect(d.Reused).To(Equal(len(prev.Call.Messages)), "call %d", c)
				Expect(d.SameRest).To(BeTrue(), "call %d", c)
			}
			prev = d
		}
		return whole
	}

	It("read each request against the last, not whole, when the agent moves its breakpoint to the newest message on every call", func() {
		Expect(run(40, func(i, n int) bool { return i == n-1 })).To(BeZero())
	})

	It("read each request against the last when the agent keeps its breakpoints on the last two user messages", func() {
		Expect(run(40, func(i, n int) bool { return i%2 == 0 && i >= n-3 })).To(BeZero())
	})

	It("read each request against the last when the agent also keeps a breakpoint on its first message", func() {
		Expect(run(40, func(i, n int) bool { return i == 0 || i == n-1 })).To(BeZero())
	})

	It("read whole, as DecodeRequest reads them, requests that drop a breakpoint older than the last messages", func() {
		// A breakpoint on message 30 kept for ten calls, then dropped.
		Expect(run(30, func(i, n int) bool { return i == n-1 || i == 31 && n < 51 })).To(Equal(1))
	})

	It("read random conversations whose last messages' breakpoints come and go, first members or last, against the last request", func() {
		r := rand.New(rand.NewPCG(8, 42))
		const cc = `"cache_control":{"type":"ephemeral"}`
		moves := []func(string) string{
			strings.NewReplacer(`,`+cc, ``, cc+`,`, ``).Replace,
			strings.NewReplacer(`{"type":"text",`, `{"type":"text",`+cc+`,`, `{"type":"tool_result",`, `{"type":"tool_result",`+cc+`,`).Replace,
			strings.NewReplacer(`"type":"tool_use",`, `"type":"tool_use",`+cc+`,`, `"signature":"c2ln"}`, `"signature":"c2ln",`+cc+`}`).Replace,
		}
		moved := 0
		for range 40 {
			var msgs []string
			var prev *anthropic.Decoded
			for step := range 20 {
				for i := max(0, len(msgs)-3); i < len(msgs); i++ {
					msgs[i] = moves[r.IntN(len(moves))](msgs[i])
				}
				msgs = append(msgs, randomMessage(r, step))
				d := decodeBoth(prev, msgsBody(nextHead, msgs, nextTail))
				if d == nil {
					msgs, prev = nil, nil
					continue
				}
				if prev != nil {
					Expect(d.Reused).To(Equal(len(prev.Call.Messages)), "%s", msgsBody(nextHead, msgs, nextTail))
					if !reflect.DeepEqual(marksBefore(prev, len(prev.Call.Messages)), marksBefore(d, len(prev.Call.Messages))) {
						moved++
					}
				}
				prev = d
			}
		}
		Expect(moved).To(BeNumerically(">", 100))
	})

	It("are read alike for two requests that move them, read against the same one at the same time", func() {
		newest := func(i, n int) bool { return i == n-1 }
		prev := decodeBoth(nil, movingBody(5, newest))
		bodies := [][]byte{movingBody(7, newest), movingBody(9, func(i, n int) bool { return i == 0 || i == n-1 })}
		got, errs := nexttest.AtOnce(bodies, func(b []byte) (*anthropic.Decoded, error) { return anthropic.DecodeNext(prev, b) })
		Expect(errs).To(HaveEach(Succeed()))
		for i, b := range bodies {
			want, err := anthropic.DecodeRequest(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Call).To(Equal(want))
			Expect(got[i].Reused).To(Equal(5))
		}
		Expect(prev.Call.Cache.Marks).To(Equal([]anthropic.Mark{{Message: 4, CacheControl: json.RawMessage(`{"type":"ephemeral"}`)}}), "the one read against is unchanged")
		Expect(prev.Call.Messages).To(HaveLen(5))
	})

	It("read whole a request that changes an earlier message besides its breakpoint", func() {
		prev := decodeBoth(nil, movingBody(5, func(i, n int) bool { return i == n-1 }))
		body := strings.Replace(string(movingBody(7, func(i, n int) bool { return i == n-1 })), `"fact 4"`, `"fact four"`, 1)
		Expect(decodeBoth(prev, []byte(body)).Reused).To(BeZero())
	})

	It("read a breakpoint moved off and onto every block that takes one: text, tool_use, tool_result and its content, a text after results", func() {
		msgs := []string{
			`{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="},"cache_control":{"type":"ephemeral"}}]}`,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s","cache_control":{"type":"ephemeral"}},{"type":"tool_use","id":"t1","name":"f","input":{"cache_control":1},"cache_control":{"type":"ephemeral"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"v","cache_control":{"type":"ephemeral","ttl":"1h"}}],"cache_control":{"type":"ephemeral"}},{"type":"text","text":"go","cache_control":{"type":"ephemeral"}}]}`,
		}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		unmarked := make([]string, len(msgs))
		for i, m := range msgs {
			unmarked[i] = strings.NewReplacer(`,"cache_control":{"type":"ephemeral"}`, ``, `,"cache_control":{"type":"ephemeral","ttl":"1h"}`, ``).Replace(m)
		}
		d := decodeBoth(prev, msgsBody(nextHead, append(unmarked, movingStep(4, true)), nextTail))
		Expect(d.Reused).To(Equal(len(prev.Call.Messages)))
		Expect(d.Call.Cache.Marks).To(HaveLen(1))
		back := decodeBoth(d, msgsBody(nextHead, append(msgs, movingStep(4, false), `{"role":"assistant","content":"ok"}`), nextTail))
		Expect(back.Reused).To(Equal(len(d.Call.Messages)))
		Expect(back.Call.Cache.Marks).To(Equal(prev.Call.Cache.Marks))

		input := decodeBoth(back, []byte(strings.Replace(string(msgsBody(nextHead, append(msgs, movingStep(4, false), `{"role":"assistant","content":"ok"}`), nextTail)), `{"cache_control":1}`, `{}`, 1)))
		Expect(input.Reused).To(BeZero(), "a tool_use input's member of that name is the call's arguments")
	})
})

var _ = Describe("the prompt cache's breakpoints of requests read against the same one", func() {
	// One request answered twice (a retry, two calls at once): the one
	// that added no breakpoint shares the first's, and a request read
	// against it must not write its own where the other's went.
	It("keep each request's own breakpoints after a request read against the one that added none adds one", func() {
		marked := func(s string) string {
			return `{"role":"user","content":[{"type":"text","text":"` + s + `","cache_control":{"type":"ephemeral"}}]}`
		}
		answer := func(s string) string { return `{"role":"assistant","content":"` + s + `"}` }
		for n := 1; n <= 6; n++ { // base requests of 1 to 6 breakpoints: some have room after them
			var base []string
			for i := range n {
				base = append(base, marked(fmt.Sprint("q", i)), answer(fmt.Sprint("a", i)))
			}
			prev := decodeBoth(nil, msgsBody(nextHead, base, nextTail))
			plainBody := msgsBody(nextHead, append(slices.Clip(base), `{"role":"user","content":"plain"}`), nextTail)
			plain := decodeBoth(prev, plainBody)
			otherBody := msgsBody(nextHead, append(slices.Clip(base), marked("other")), nextTail)
			other := decodeBoth(prev, otherBody)
			decodeBoth(plain, msgsBody(nextHead, append(slices.Clip(base), `{"role":"user","content":"plain"}`, answer("b"), marked("next")), nextTail))

			want, err := anthropic.DecodeRequest(otherBody)
			Expect(err).NotTo(HaveOccurred())
			Expect(other.Call.Cache.Marks).To(Equal(want.Cache.Marks), "%d breakpoints before", n)
			want, err = anthropic.DecodeRequest(plainBody)
			Expect(err).NotTo(HaveOccurred())
			Expect(plain.Call.Cache.Marks).To(Equal(want.Cache.Marks), "%d breakpoints before", n)
		}
	})
})
