package wire_test

import (
	"context"
	"net/http"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a request's session, inferred", func() {
	infer := func(c *wire.Config) { c.Lineage = wire.Infer }
	delegate := func(prompt string) []session.Part {
		return []session.Part{toolCall("call_1", "subagent", `{"prompt":"`+prompt+`"}`)}
	}

	// Some models number their calls afresh in every answer: the second
	// turn's call_1 is another call, and its child is that call's.
	It("gives a call id the parent's answers make again to the latest call with it: a later session with that call's prompt is refused", func() {
		h, _, url := serveWire(script(map[string][]any{"root": {delegate("look up the release"), "v2.4.1 it is.", delegate("look up the owner")}}), infer)
		first := []string{user("hi"), asked([3]string{"call_1", "subagent", `{"prompt":"look up the release"}`})}
		ok(url, chat(first[0]), nil)
		ok(url, chat(user("look up the release")), nil)
		ok(url, chat(append(first, result("call_1", "v2.4.1"))...), nil)
		ok(url, chat(append(first, result("call_1", "v2.4.1"), assistant("v2.4.1 it is."), user("And the owner?"))...), nil)
		ok(url, chat(user("look up the owner")), nil) // the child of the second call_1

		code, body := post(url, chat(user("Some context."), user("look up the owner")), nil)
		Expect(code).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(ContainSubstring("continues no session, and no open tool call's arguments hold its prompt"))
		Expect(h.Close(context.Background())).To(HaveOccurred())
	})

	// An agent may send a user message after its tool results (a reminder,
	// the user's own words); one that names an open call's argument is still
	// the session's next step, not a child of that call.
	It("takes a request that carries a session's results for its next step, though a user message after them holds a call's arguments", func() {
		lookup := []session.Part{toolCall("call_1", "lookup", `{"key":"release notes"}`)}
		h, store, url := serveWire(script(map[string][]any{"root": {lookup, "Summed up."}}), infer)
		ok(url, chat(user("hi")), nil)
		answer := ok(url, chat(user("hi"), asked([3]string{"call_1", "lookup", `{"key":"release notes"}`}), result("call_1", "v2.4.1: faster"), user("Now sum up the release notes.")), nil)
		Expect(answer).To(ContainSubstring("Summed up."))
		Expect(h.Close(context.Background())).To(Succeed())
		headers, err := store.List(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(headers).To(HaveLen(1))
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(session.Encode(&l.Header, l.Events))).To(MatchRegexp(`"type":"tool/result".*"toolCallId":"call_1".*"text":"v2.4.1: faster"`))
	})

	// langchaingo's googleai (on generative-ai-go's proto-generated client)
	// sends the answer's call back without its id, and its result names
	// none either: the result is the call's by the tool's name.
	It("takes a Gemini request whose results name no ids, as a proto-generated client sends them, for the session's next step, though a user message after them holds a call's arguments", func() {
		lookup := []session.Part{toolCall("call_1", "lookup", `{"key":"release notes"}`)}
		h, store, url := serveWire(script(map[string][]any{"root": {lookup, "Summed up."}}), infer)
		const (
			before  = `{"model":"models/gemini-x","contents":[{"parts":[{"text":"hi"}],"role":"user"}`
			after   = `],"tools":[{"functionDeclarations":[{"name":"lookup","description":"Looks a key up.","parameters":{"type":6,"properties":{"key":{"type":1}},"required":["key"]}}]}],"generationConfig":{"candidateCount":1}}`
			call    = `,{"parts":[{"functionCall":{"name":"lookup","args":{"key":"release notes"}}}],"role":"model"}`
			results = `,{"parts":[{"functionResponse":{"name":"lookup","response":{"response":"v2.4.1: faster"}}}],"role":"user"}`
			nudge   = `,{"parts":[{"text":"Now sum up the release notes."}],"role":"user"}`
		)
		for _, body := range []string{before + after, before + call + results + nudge + after} {
			code, answer := postTo(url, protoPath, body)
			Expect(code).To(Equal(http.StatusOK), answer)
		}
		Expect(h.Close(context.Background())).To(Succeed())
		headers, err := store.List(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(headers).To(HaveLen(1), "the request with the results started no child of call_1")
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(session.Encode(&l.Header, l.Events))).To(MatchRegexp(`"type":"tool/result".*"toolCallId":"call_1".*"text":"\{\\"response\\":\\"v2.4.1: faster\\"\}"`))
	})
})
