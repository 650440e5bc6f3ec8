package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// say answers with text, in a message streamed word by word.
func say(text string) iter.Seq[llm.Chunk] { return slices.Values(saying(text)) }

// saying is the chunks of say.
func saying(text string) []llm.Chunk {
	return llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, nil, "")
}

// sayDriver answers every call with text, naming the session that asked.
var sayDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	return say("hello " + req.Session.ID), nil
})

// lookupDriver answers a user message with one tool call, call_1, and
// anything else with text.
var lookupDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if req.Messages[len(req.Messages)-1].Role != session.RoleUser {
		return say("done"), nil
	}
	return calls(toolCall("call_1", "lookup", `{"key":"release"}`)), nil
})

func toolCall(id, name, args string) session.Part {
	return session.Part{Type: session.PartToolCall, ID: id, Name: name, Arguments: args}
}

// calls answers with tool calls.
func calls(parts ...session.Part) iter.Seq[llm.Chunk] {
	return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: parts}, nil, session.FinishToolCalls))
}

// scripted answers each session's calls in turn from its queue (by
// session id), text for a string, tool calls for a []session.Part and a
// whole answer for a session.Message; a session's queue that runs out says
// "done".
type scripted struct {
	mu      sync.Mutex
	answers map[string][]any
}

func script(answers map[string][]any) *scripted { return &scripted{answers: answers} }

func (d *scripted) Stream(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.answers[req.Session.ID]
	if len(q) == 0 {
		return say("done"), nil
	}
	d.answers[req.Session.ID] = q[1:]
	switch a := q[0].(type) {
	case string:
		return say(a), nil
	case []session.Part:
		return calls(a...), nil
	case session.Message:
		return slices.Values(llm.StreamMessage(a, nil, "")), nil
	}
	panic(fmt.Sprintf("scripted: answer %T", q[0]))
}

// serveWire serves a new handler on drv over a test server and returns
// the handler, its store and the server's URL.
func serveWire(drv llm.Driver, opts ...func(*wire.Config)) (*wire.Handler, persistence.Store, string) {
	store := memory.New()
	cfg := wire.Config{Driver: drv, Store: store}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := wire.NewHandler(cfg)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(h)
	DeferCleanup(srv.Close)
	return h, store, srv.URL
}

// post sends one chat completions request with headers to url.
func post(url, body string, headers map[string]string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// ok posts and expects a 200.
func ok(url, body string, headers map[string]string) string {
	GinkgoHelper()
	code, answer := post(url, body, headers)
	Expect(code).To(Equal(http.StatusOK), answer)
	return answer
}

// chat is a chat completions request body with messages, each a JSON
// message object.
func chat(messages ...string) string {
	return `{"model":"m","messages":[` + strings.Join(messages, ",") + `]}`
}

func user(text string) string      { return fmt.Sprintf(`{"role":"user","content":%q}`, text) }
func assistant(text string) string { return fmt.Sprintf(`{"role":"assistant","content":%q}`, text) }
func result(id, text string) string {
	return fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%q}`, id, text)
}

// asked is an assistant message with tool calls, each "id name args".
func asked(calls ...[3]string) string {
	var tc []string
	for _, c := range calls {
		tc = append(tc, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, c[0], c[1], c[2]))
	}
	return `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(tc, ",") + `]}`
}

// expectRefused expects a 400 answer whose error message, and then what
// Close returns, contain want.
func expectRefused(h *wire.Handler, code int, body, want string) {
	GinkgoHelper()
	Expect(refusal(code, body)).To(ContainSubstring(want))
	Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
}

// refusal expects a 400 answer and returns its error message.
func refusal(code int, body string) string {
	GinkgoHelper()
	Expect(code).To(Equal(http.StatusBadRequest), body)
	var answer struct{ Error struct{ Message string } }
	Expect(json.Unmarshal([]byte(body), &answer)).To(Succeed(), body)
	return answer.Error.Message
}

// rendered closes h and renders the logs of the sessions ids.
func rendered(h *wire.Handler, store persistence.Store, ids ...string) string {
	GinkgoHelper()
	Expect(h.Close(context.Background())).To(Succeed())
	var logs []*session.Log
	for _, id := range ids {
		l, err := store.Load(context.Background(), id)
		Expect(err).NotTo(HaveOccurred())
		logs = append(logs, l)
	}
	text, err := transcript.Render(logs)
	Expect(err).NotTo(HaveOccurred())
	return text
}

var _ = Describe("a fork child's first request", func() {
	fork := map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "call_f", wire.HeaderMode: "fork"}
	lookedUp := asked([3]string{"call_l", "lookup", `{"key":"release"}`})

	// The root "main" completes turn 1 with a tool call (hi → lookup →
	// v2.4.1 → noted), then forks in turn 2: the child inherits turn 1.
	DescribeTable("is recorded as sent, its seed stamped from the parent's completed turns whatever it sends",
		func(messages []string, want string) {
			drv := script(map[string][]any{"root": {
				[]session.Part{toolCall("call_l", "lookup", `{"key":"release"}`)}, "noted",
				[]session.Part{toolCall("call_f", "subagent_fork", `{"prompt":"q"}`)},
			}})
			h, store, url := serveWire(drv)
			main := map[string]string{wire.HeaderSession: "main"}
			ok(url, chat(user("hi")), main)
			ok(url, chat(user("hi"), lookedUp, result("call_l", "v2.4.1")), main)
			ok(url, chat(user("hi"), lookedUp, result("call_l", "v2.4.1"), assistant("noted"), user("fork")), main)
			Expect(ok(url, chat(messages...), fork)).To(ContainSubstring("done"))
			ok(url, chat(user("hi"), lookedUp, result("call_l", "v2.4.1"), assistant("noted"), user("fork"),
				asked([3]string{"call_f", "subagent_fork", `{"prompt":"q"}`}), result("call_f", "done")), main)

			l, err := store.Load(context.Background(), "root/call_f")
			Expect(err).NotTo(HaveOccurred())
			parent, err := store.Load(context.Background(), "root")
			Expect(err).NotTo(HaveOccurred())
			turn1 := slices.IndexFunc(parent.Events, func(e session.Event) bool { return e.Type == session.TypeTurnEnd }) + 1
			Expect(l.Header.SeedLength).To(Equal(turn1), "turn 1 of the parent, stamped when the child was created")
			Expect(l.Events[:turn1]).To(Equal(parent.Events[:turn1]))
			text := rendered(h, store, "root", "root/call_f")
			_, own, found := strings.Cut(text, "(inherits 23 events from root: turn 1)\n")
			Expect(found).To(BeTrue(), text)
			Expect(own).To(Equal(want))
		},
		Entry("its parent's completed turns, then its prompt", []string{user("hi"), lookedUp, result("call_l", "v2.4.1"), assistant("noted"), user("q")}, `turn 2 (subagent)
  user: q
  step 1
    assistant: done
  ended completed
`),
		Entry("only its prompt", []string{user("q")}, `turn 2 (subagent)
  history replaced: no message kept, nothing after
  user: q
  step 1
    assistant: done
  ended completed
`),
		Entry("an inherited answer changed", []string{user("hi"), lookedUp, result("call_l", "v2.4.1"), assistant("noted well"), user("q")}, `turn 2 (subagent)
  history replaced: the first 3 messages kept, then:
    assistant: noted well
  user: q
  step 1
    assistant: done
  ended completed
`),
		Entry("an inherited tool call sent with other arguments", []string{user("hi"), asked([3]string{"call_l", "lookup", `{"key":"owner"}`}), result("call_l", "v2.4.1"), assistant("noted"), user("q")}, `turn 2 (subagent)
  history replaced: the first message kept, then:
    call call_l lookup {"key":"owner"}
    result call_l: v2.4.1
    assistant: noted
  user: q
  step 1
    assistant: done
  ended completed
`),
		Entry("an inherited tool result altered", []string{user("hi"), lookedUp, result("call_l", "v9"), assistant("noted"), user("q")}, `turn 2 (subagent)
  history replaced: the first 2 messages kept, then:
    result call_l: v9
    assistant: noted
  user: q
  step 1
    assistant: done
  ended completed
`),
		Entry("the inherited turns its own way, as user messages (Eino's full history)", []string{user("For context: the user said hi"), user("For context: you said noted"), user("q")}, `turn 2 (subagent)
  history replaced: no message kept, nothing after
  user: For context: the user said hi
  user: For context: you said noted
  user: q
  step 1
    assistant: done
  ended completed
`),
		Entry("two messages after them", []string{user("hi"), lookedUp, result("call_l", "v2.4.1"), assistant("noted"), user("context"), user("q")}, `turn 2 (subagent)
  user: context
  user: q
  step 1
    assistant: done
  ended completed
`),
	)
})

var _ = Describe("the tool results a request brings", func() {
	hi := user("hi")

	It("end the step in the order of the calls, whatever order they are sent in, and a split answer is its history as sent", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "lookup", `{"key":"a"}`), toolCall("call_b", "lookup", `{"key":"b"}`)}, "both"}})
		h, store, url := serveWire(drv)
		ok(url, chat(hi), nil)
		// langchaingo's shape: one assistant message per tool call, each
		// followed by its result.
		ok(url, chat(hi, asked([3]string{"call_a", "lookup", `{"key":"a"}`}), result("call_a", "A"),
			asked([3]string{"call_b", "lookup", `{"key":"b"}`}), result("call_b", "B")), nil)
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    call call_a lookup {"key":"a"}
    call call_b lookup {"key":"b"}
    result call_a: A
    result call_b: B
  history replaced: the first message kept, then:
    call call_a lookup {"key":"a"}
    result call_a: A
    call call_b lookup {"key":"b"}
    result call_b: B
  step 2
    assistant: both
  ended completed
`))
	})

	It("records a call whose result the request does not carry as an error result, and the request as sent", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "lookup", `{"key":"a"}`), toolCall("call_b", "lookup", `{"key":"b"}`)}}})
		h, store, url := serveWire(drv)
		ok(url, chat(hi), nil)
		both := asked([3]string{"call_a", "lookup", `{"key":"a"}`}, [3]string{"call_b", "lookup", `{"key":"b"}`})
		ok(url, chat(hi, both, result("call_b", "B")), nil)
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    call call_a lookup {"key":"a"}
    call call_b lookup {"key":"b"}
    result call_a (error): agentsnap: the agent's next request sent no result for this call
    result call_b: B
  history replaced: the first 2 messages kept, then:
    result call_b: B
  step 2
    assistant: done
  ended completed
`))
	})

	DescribeTable("refuse a request that carries none of them, naming what a child sends",
		func(next string) {
			h, _, url := serveWire(lookupDriver)
			Expect(ok(url, chat(hi), nil)).To(ContainSubstring(`"id":"call_1"`))
			code, body := post(url, chat(next), nil)
			expectRefused(h, code, body, "a request for session root, which waits for the results of its tool calls (call_1), carries none of them; if it is a subagent's call, name its session: in process, make the child's context with wire.Spawn(ctx, callID) or wire.Fork(ctx, callID) from its parent's; over HTTP, send the headers Agentsnap-Session, Agentsnap-Parent, Agentsnap-Call and Agentsnap-Mode; or let agentsnap infer children")
		},
		Entry("a child's first call without its tags", user("look up the release")),
		Entry("a result for a call it did not make", result("call_2", "v2.4.1")),
	)

	It("may be left out by a session that goes on under another agent (a handoff): its request repeats the last one, then says so", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_h", "transfer_to_agent", `{"agent_name":"cashier"}`)}, "You owe 10 EUR."}})
		h, store, url := serveWire(drv)
		ok(url, chat(hi), nil)
		cashier := `{"role":"system","content":"You are the cashier."}`
		ok(url, chat(cashier, hi, user("For context: [folio] called transfer_to_agent."), user("For context: transferred to cashier.")), nil)
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    call call_h transfer_to_agent {"agent_name":"cashier"}
    result call_h (error): agentsnap: the agent's next request sent no result for this call
  history replaced: the first message kept, then:
    user: For context: [folio] called transfer_to_agent.
    user: For context: transferred to cashier.
  step 2
    called with another system prompt (20 characters)
    assistant: You owe 10 EUR.
  ended completed
`))
	})

	It("take results from what the request sends after the last request: a reused call id gets this step's result", func() {
		drv := script(map[string][]any{"root": {
			[]session.Part{toolCall("call_0", "lookup", `{"key":"a"}`)},
			[]session.Part{toolCall("call_0", "lookup", `{"key":"b"}`)}, "ab",
		}})
		h, store, url := serveWire(drv)
		first := asked([3]string{"call_0", "lookup", `{"key":"a"}`})
		second := asked([3]string{"call_0", "lookup", `{"key":"b"}`})
		ok(url, chat(hi), nil)
		ok(url, chat(hi, first, result("call_0", "A")), nil)
		ok(url, chat(hi, first, result("call_0", "A"), second, result("call_0", "B")), nil)
		Expect(rendered(h, store, "root")).To(ContainSubstring(`  step 2
    call call_0 lookup {"key":"b"}
    result call_0: B
  step 3
`))
	})
})

var _ = Describe("what a request sends", func() {
	It("opens a turn with every user message it ends with (a context message and the question)", func() {
		h, store, url := serveWire(sayDriver)
		ok(url, chat(user("Context: the release is v2."), user("Which release?")), nil)
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: Context: the release is v2.
  user: Which release?
  step 1
    assistant: hello root
  ended completed
`))
	})

	It("records an agent without memory, asked twice, as the same turn shape with its history replaced", func() {
		h, store, url := serveWire(sayDriver)
		ok(url, chat(user("Which release?")), nil)
		ok(url, chat(user("Which release?")), nil)
		ok(url, chat(user("Who owns it?")), nil)
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: Which release?
  step 1
    assistant: hello root
  ended completed
turn 2 (user)
  history replaced: no message kept, nothing after
  user: Which release?
  step 1
    assistant: hello root
  ended completed
turn 3 (user)
  history replaced: no message kept, nothing after
  user: Who owns it?
  step 1
    assistant: hello root
  ended completed
`))
	})

	It("records a compacted history as sent", func() {
		h, store, url := serveWire(sayDriver)
		ok(url, chat(user("one")), nil)
		ok(url, chat(user("one"), assistant("hello root"), user("two")), nil)
		ok(url, chat(user("Summary: one, two."), user("three")), nil)
		Expect(rendered(h, store, "root")).To(HaveSuffix(`turn 3 (user)
  history replaced: no message kept, nothing after
  user: Summary: one, two.
  user: three
  step 1
    assistant: hello root
  ended completed
`))
	})

	It("keeps the request's settings in the request header, in one spelling", func() {
		h, store, url := serveWire(sayDriver)
		ok(url, `{"model":"m","top_p":1,"temperature":0.2,"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"},"stream":false,"stream_options":{"include_usage":true}}`, nil)
		Expect(h.Close(context.Background())).To(Succeed())
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		var hdr session.RequestHeaderData
		for _, e := range l.Events {
			if e.Type == session.TypeRequestHeader {
				Expect(e.Decode(&hdr)).To(Succeed())
			}
		}
		Expect(hdr.API).To(Equal("openai-chat"))
		Expect(string(hdr.Settings)).To(Equal(`{"response_format":{"type":"json_object"},"temperature":0.2,"top_p":1}`))
	})
})

var _ = Describe("a failed model call", func() {
	DescribeTable("is answered as the provider would answer it, and its retry goes on with the same turn",
		func(stream bool, status int) {
			var n atomic.Int32
			flaky := llm.DriverFunc(func(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
				if n.Add(1) == 1 {
					return slices.Values([]llm.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")}), nil
				}
				return sayDriver.Stream(ctx, req)
			})
			h, store, url := serveWire(flaky)
			request := fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"user","content":"hi"}]}`, stream)
			code, body := post(url, request, nil)
			Expect(code).To(Equal(status), body)
			Expect(body).To(ContainSubstring(`"code":"RATE_LIMIT"`))
			Expect(ok(url, request, nil)).To(ContainSubstring(`"hello`))
			Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    model call failed (attempt 1): RATE_LIMIT: slow down
    assistant: hello root
  ended completed
`))
		},
		Entry("streamed: an error event", true, http.StatusOK),
		Entry("whole: the provider's status", false, http.StatusTooManyRequests),
	)

	It("that the agent does not retry ends its turn with the failure, and a call aborted ends its turn aborted", func() {
		var n atomic.Int32
		drv := llm.DriverFunc(func(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			switch n.Add(1) {
			case 1:
				return slices.Values([]llm.Chunk{session.ErrorFinish("SERVER", "boom")}), nil
			case 2:
				return slices.Values([]llm.Chunk{session.Finish(session.FinishAborted)}), nil
			}
			return sayDriver.Stream(ctx, req)
		})
		h, store, url := serveWire(drv)
		post(url, chat(user("one")), nil)
		post(url, chat(user("two")), nil)
		ok(url, chat(user("three")), nil)
		Expect(rendered(h, store, "root")).To(ContainSubstring(`  step 1
    model call failed (attempt 1): SERVER: boom
  ended error: SERVER: boom
turn 2 (user)
  history replaced: no message kept, nothing after
  user: two
  step 1
    model call aborted (attempt 1)
  ended aborted: the model call was aborted
turn 3 (user)`))
	})

	It("that cannot start is a 4xx (SDKs retry a 5xx) and a problem Close reports", func() {
		refuse := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return nil, fmt.Errorf("fakellm: unrecorded session")
		})
		h, _, url := serveWire(refuse)
		code, body := post(url, chat(user("hi")), nil)
		expectRefused(h, code, body, "the model call could not start: fakellm: unrecorded session")
	})
})

var _ = Describe("a stream the driver can give once (a live model's)", func() {
	It("is read once: the answer is served and every chunk recorded", func() {
		var served, readings atomic.Int32
		once := llm.DriverFunc(func(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			seq, _ := sayDriver.Stream(ctx, req)
			var used atomic.Bool
			return func(yield func(llm.Chunk) bool) {
				readings.Add(1)
				if used.Swap(true) {
					yield(session.ErrorFinish("CONSUMED", "this stream was already iterated"))
					return
				}
				served.Add(1)
				for c := range seq {
					if !yield(c) {
						return
					}
				}
			}, nil
		})
		h, store, url := serveWire(once)
		body := ok(url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
		Expect(body).To(ContainSubstring(`"content":"hello"`))
		Expect(body).To(HaveSuffix("data: [DONE]\n\n"))
		Expect(h.Close(context.Background())).To(Succeed())
		Expect(served.Load()).To(Equal(int32(1)))
		Expect(readings.Load()).To(Equal(int32(1)), "a live stream is read once: a second reading fails it")
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		var finishes []string
		for _, e := range l.Events {
			if d, err := session.DecodeChunkData(e.Data); err == nil && e.Type == session.TypeAssistantChunk && d.Chunk.IsFinish() {
				finishes = append(finishes, d.Chunk.Reason.Kind)
			}
		}
		Expect(finishes).To(Equal([]string{session.FinishStop}), "one finish, the model's, not a second reading's error")
	})
})

var _ = Describe("a driver's stream that does not end with exactly one finish", func() {
	// deaf: the driver goes on giving chunks though told to stop.
	DescribeTable("ends at its first finish, or with a NO_FINISH failure, for the agent and in the log",
		func(stream, deaf bool, chunks []llm.Chunk, wantBody, wantLog string) {
			var after atomic.Int32 // chunks the driver was let give past a finish
			drv := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
				return func(yield func(llm.Chunk) bool) {
					finished := false
					for _, c := range chunks {
						if finished && !deaf {
							after.Add(1)
						}
						if !yield(c) && !deaf {
							return
						}
						finished = finished || c.IsFinish()
					}
				}, nil
			})
			h, store, url := serveWire(drv)
			_, body := post(url, fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"user","content":"hi"}]}`, stream), nil)
			Expect(body).To(ContainSubstring(wantBody))
			Expect(body).NotTo(ContainSubstring("late"), "nothing after the finish reaches the agent")
			if !deaf {
				Expect(after.Load()).To(BeZero(), "the stream is not read past its finish")
			}
			Expect(rendered(h, store, "root")).To(ContainSubstring(wantLog))
		},
		Entry("streamed, ending without a finish", true, false, saying("hello")[:2:2], `"code":"NO_FINISH"`,
			"model call failed (attempt 1): NO_FINISH: the model stream ended without a finish chunk"),
		Entry("whole, ending without a finish", false, false, saying("hello")[:2:2], `"code":"NO_FINISH"`,
			"model call failed (attempt 1): NO_FINISH: the model stream ended without a finish chunk"),
		Entry("streamed, going on after its finish", true, false, slices.Concat(saying("hello"), saying("late")), `"content":"hello"`,
			"  step 1\n    assistant: hello\n  ended completed\n"),
		Entry("whole, going on after its finish", false, false, slices.Concat(saying("hello"), saying("late")), `"content":"hello"`,
			"  step 1\n    assistant: hello\n  ended completed\n"),
		Entry("streamed, going on though told to stop", true, true, slices.Concat(saying("hello"), saying("late")), `"content":"hello"`,
			"  step 1\n    assistant: hello\n  ended completed\n"),
	)
})

// keepingYield is a driver that keeps its first call's yield and, in each
// later call, gives "ghost" through it before answering "hello"; with
// panics, its first call panics after its first chunk.
func keepingYield(panics bool) llm.Driver {
	var kept func(llm.Chunk) bool
	return llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
		return func(yield func(llm.Chunk) bool) {
			if kept == nil {
				kept = yield
				if panics {
					yield(saying("hello")[0])
					panic("a driver's bug")
				}
			} else {
				for _, c := range saying("ghost") {
					if !kept(c) {
						break
					}
				}
			}
			for _, c := range saying("hello") {
				if !yield(c) {
					return
				}
			}
		}, nil
	})
}

var _ = Describe("a driver that calls yield after its stream returned", func() {
	It("reaches a call that has ended: nothing of it is recorded in the session's next call", func() {
		h, store, url := serveWire(keepingYield(false))
		ok(url, chat(user("one")), nil)
		body := ok(url, chat(user("one"), assistant("hello"), user("two")), nil)
		Expect(body).NotTo(ContainSubstring("ghost"))
		Expect(rendered(h, store, "root")).NotTo(ContainSubstring("ghost"))
	})

	It("after its stream panicked leaves that call ended: the next call's answer and the log have nothing of it", func() {
		drv := keepingYield(true)
		store := memory.New()
		h, err := wire.NewHandler(wire.Config{Driver: drv, Store: store})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewUnstartedServer(h)
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the panic net/http recovers
		srv.Start()
		DeferCleanup(srv.Close)
		streamed := `{"model":"m","stream":true,"messages":[{"role":"user","content":"one"}]}`
		if resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(streamed)); err == nil {
			resp.Body.Close() // the panic cuts the answer: an error or a cut body
		}
		_, body := post(srv.URL, streamed, nil)
		Expect(body).NotTo(ContainSubstring("ghost"))
		_ = h.Close(context.Background())
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		for _, e := range l.Events {
			Expect(string(e.Data)).NotTo(ContainSubstring("ghost"))
		}
	})
})

var _ = Describe("a child's later turns", func() {
	It("are started by its user (trigger user); only the first is its parent's (subagent)", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_c", "subagent_spawn", `{"prompt":"p"}`)}}})
		h, store, url := serveWire(drv)
		ok(url, chat(user("hi")), nil)
		child := map[string]string{wire.HeaderSession: "c", wire.HeaderParent: "root", wire.HeaderCall: "call_c", wire.HeaderMode: "spawn"}
		ok(url, chat(user("first")), child)
		ok(url, chat(user("first"), assistant("done"), user("second")), child)
		ok(url, chat(user("hi"), asked([3]string{"call_c", "subagent_spawn", `{"prompt":"p"}`}), result("call_c", "done")), nil)
		Expect(rendered(h, store, "root", "root/call_c")).To(ContainSubstring(`turn 1 (subagent)
  user: first
  step 1
    assistant: done
  ended completed
turn 2 (user)
  user: second`))
	})
})

var _ = Describe("tool results sent in another order than the calls", func() {
	It("are recorded in the order of the calls, and the request as sent", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "lookup", `{"key":"a"}`), toolCall("call_b", "lookup", `{"key":"b"}`)}, "both"}})
		h, store, url := serveWire(drv)
		ok(url, chat(user("hi")), nil)
		both := asked([3]string{"call_a", "lookup", `{"key":"a"}`}, [3]string{"call_b", "lookup", `{"key":"b"}`})
		ok(url, chat(user("hi"), both, result("call_b", "B"), result("call_a", "A")), nil)
		Expect(rendered(h, store, "root")).To(ContainSubstring(`    result call_a: A
    result call_b: B
  history replaced: the first 2 messages kept, then:
    result call_b: B
    result call_a: A
  step 2`))
	})
})

var _ = Describe("a streamed tool call whose recorded deltas name no id", func() {
	It("reaches the agent with the id the log gave it, on its first delta", func() {
		blockEnd := session.Chunk{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockToolCall, ID: "call_0", Name: "lookup", Arguments: `{"key":"a"}`}}
		drv := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values([]llm.Chunk{
				{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall},
				{Type: session.ChunkToolCallDelta, Index: 0, Name: "lookup", ArgumentsDelta: `{"key":`},
				{Type: session.ChunkToolCallDelta, Index: 0, ArgumentsDelta: `"a"}`},
				blockEnd,
				session.Finish(session.FinishToolCalls),
			}), nil
		})
		h, _, url := serveWire(drv)
		body := ok(url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
		Expect(body).To(ContainSubstring(`"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"a\"}"}}]`))
		Expect(strings.Count(body, `"tool_calls":[`)).To(Equal(1), "nothing of the call went out before its id")
		_ = h.Close(context.Background())
	})
})

var _ = Describe("a request on a path no API is served on", func() {
	It("is a 404 naming the APIs served; a call (a POST) is a problem Close names first, a GET is not", func() {
		h, _, url := serveWire(sayDriver)
		resp, err := http.Get(url + "/v1/models")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(h.Close(context.Background())).To(Succeed())

		h, _, url = serveWire(sayDriver)
		ok(url, chat(user("hi")), nil)
		resp, err = http.Post(url+"/v1/embeddings", "application/json", strings.NewReader(`{"input":"x"}`))
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		Expect(string(b)).To(ContainSubstring("POST /v1/embeddings is not a model call agentsnap serves (it serves OpenAI Chat Completions (POST /v1/chat/completions), "))
		err = h.Close(context.Background())
		Expect(err).To(MatchError(HavePrefix("wire: POST /v1/embeddings is not a model call")))
	})
})
