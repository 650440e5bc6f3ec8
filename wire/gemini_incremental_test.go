package wire_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// wholeGemini is Gemini read whole on every call: only the methods of
// Format, not the handler's way of reading a request against the
// session's last one.
type wholeGemini struct{ wire.Format }

// geminiCallSeq sends calls to a new handler serving formats, each
// "MODEL\nBODY" to that model's streamGenerateContent, as the root
// session, and returns every log it wrote, encoded.
func geminiCallSeq(formats []wire.Format, calls ...string) map[string]string {
	GinkgoHelper()
	answers := map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "v2.4.1 it is.",
		[]session.Part{toolCall("call_2", "lookup", `{"key":"owner"}`)}, "team-atlas."}}
	reqs := make([]*http.Request, len(calls))
	for i, c := range calls {
		model, body, _ := strings.Cut(c, "\n")
		reqs[i] = httptest.NewRequest(http.MethodPost, "/v1beta/models/"+model+":streamGenerateContent?alt=sse", strings.NewReader(body))
	}
	return serveRequests(answers, formats, wire.Explicit, reqs)
}

// genaiWith is the genai agent, streamed, on a handler serving formats.
func genaiWith(formats []wire.Format, change func(*genaiAgent)) agentsnap.Runtime {
	return wire.Runtime("genai-test-agent", func(ctx context.Context, env *wire.Env) error {
		a, err := newGenaiAgent(ctx, env.Scenario.Agent, env.HTTPClient, strings.TrimSuffix(env.BaseURL, "/v1"), "")
		if err != nil {
			return err
		}
		change(a)
		root, err := a.root(ctx)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := root.Send(ctx, prompt)
			return err
		})
	}, func(c *wire.Config) { c.Formats = formats })
}

// encodedLogs returns the logs of the fixture in dir, encoded.
func encodedLogs(dir string) []string {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, l := range fx.Logs {
		out = append(out, string(session.Encode(&l.Header, l.Events)))
	}
	return out
}

var _ = Describe("a Gemini request read against the session's last one", func() {
	q1, q2 := gUser("Which release is current?"), gUser("And who owns it?")
	call1, call2 := gCall("lookup", `{"key":"release"}`), gCall("lookup", `{"key":"owner"}`)
	r1, r2 := gResult("lookup", "v2.4.1"), gResult("lookup", "team-atlas")
	twoCalls := `{"role":"model","parts":[{"functionCall":{"id":"call_1","name":"lookup","args":{"key":"release"}}},{"functionCall":{"id":"call_2","name":"lookup","args":{"key":"owner"}}}]}`
	a1 := `{"role":"model","parts":[{"text":"v2.4.1 it is."}]}`
	const rest = `,"generationConfig":{"temperature":0.2},"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":[{"functionDeclarations":[{"name":"lookup","parametersJsonSchema":{"type":"object"}}]}]}`
	body := func(contents ...string) string {
		return "gemini-x\n" + `{"contents":[` + strings.Join(contents, ",") + `]` + rest
	}

	DescribeTable("writes the logs a handler reading every request whole writes, byte for byte",
		func(want string, calls ...string) {
			whole := geminiCallSeq([]wire.Format{wholeGemini{wire.Gemini}}, calls...)
			got := geminiCallSeq([]wire.Format{wire.Gemini}, calls...)
			Expect(got).To(Equal(whole))
			Expect(got["root"]).To(ContainSubstring(want))
		},
		Entry("a conversation that grows", `"turn":2`,
			body(q1), body(q1, call1, r1), body(q1, call1, r1, a1, q2), body(q1, call1, r1, a1, q2, call2, r2)),
		Entry("a history rewritten by one byte", `history/replace`,
			body(q1), body(q1, call1, r1), body(gUser("Which release is current!"), call1, r1, a1, q2)),
		Entry("a result paired by name rewritten", `history/replace`,
			body(q1), body(q1, call1, r1), body(q1, call1, gResult("lookup", "v2.4.2"), a1, q2)),
		Entry("a history cut short", `history/replace`,
			body(q1), body(q1, call1, r1), body(q2)),
		Entry("a result's willContinue changed as the next turn starts", `"turn":2,"keep":2,"messages":[{"role":"tool","content":[{"type":"tool-result","toolCallId":"","name":"lookup","content":[{"type":"text","text":"v2.4.1"}],"isError":false,"meta":{"gemini":{"willContinue":false}}}]}`,
			body(q1), body(q1, call1, gResultWill("lookup", "v2.4.1", true)), body(q1, call1, gResultWill("lookup", "v2.4.1", false), a1, q2)),
		Entry("a setting changed", `"temperature":0.7`,
			body(q1), strings.Replace(body(q1, call1, r1), "0.2", "0.7", 1)),
		Entry("another system instruction", `"systemChars":9`,
			body(q1), strings.Replace(body(q1, call1, r1), "Be brief.", "Be terse", 1)),
		Entry("another model in the URL, the body the same", `"model":"gemini-y"`,
			body(q1), strings.Replace(body(q1, call1, r1), "gemini-x", "gemini-y", 1)),
		Entry("the results of one answer sent over two requests, paired by name", `"turn":2`,
			body(q1), body(q1, twoCalls, r1), body(q1, twoCalls, r1, gResult("lookup", "team-atlas")), body(q1, twoCalls, r1, gResult("lookup", "team-atlas"), a1, q2)),
		Entry("a request the handler refuses, then the conversation again", `"turn":2`,
			body(q1), body(q1, call1, r1, `{"role":"wizard","parts":[]}`), body(q1, call1, r1), body(q1, call1, r1, a1, q2)),
	)

	DescribeTable("an agent on the genai SDK records the same logs, byte for byte, and replays them",
		func(change func(*genaiAgent)) {
			whole := newFixture("mixed/genai", forkScenario, forkPlaybook)
			recordGenai(whole, genaiWith([]wire.Format{wholeGemini{wire.Gemini}}, change))
			inc := newFixture("mixed/genai", forkScenario, forkPlaybook)
			rt := genaiWith([]wire.Format{wire.Gemini}, change)
			recordGenai(inc, rt)
			logs := encodedLogs(inc)
			Expect(logs).To(Equal(encodedLogs(whole)))
			Expect(logs).To(HaveLen(3))
			fx, err := fixture.Load(whole)
			Expect(err).NotTo(HaveOccurred())
			for range 3 {
				o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: rt})
				Expect(err).NotTo(HaveOccurred())
				Expect(o).To(harness.MatchRecording())
			}
		},
		Entry("streamed, a content kept per event", func(*genaiAgent) {}),
		Entry("whole answers, with settings", func(a *genaiAgent) { a.Whole, a.Temperature = true, 0.3 }),
		Entry("the SDK's Chats", func(a *genaiAgent) { a.Chat = true }),
	)
})

func gUser(text string) string {
	return fmt.Sprintf(`{"role":"user","parts":[{"text":%q}]}`, text)
}

// gCall is a model content calling name, without an id: its result is
// paired with it by name.
func gCall(name, args string) string {
	return fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"name":%q,"args":%s},"thoughtSignature":"c2ln"}]}`, name, args)
}

func gResult(name, output string) string {
	return fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":%q,"response":{"output":%q}}}]}`, name, output)
}

// gResultWill is gResult of a non-blocking function, with willContinue.
func gResultWill(name, output string, willContinue bool) string {
	return fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":%q,"response":{"output":%q},"willContinue":%t}}]}`, name, output, willContinue)
}
