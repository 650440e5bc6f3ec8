package wire_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// wholeChat is Chat Completions read whole on every call: only the
// methods of Format, not the handler's way of reading a request against
// the session's last one.
type wholeChat struct{ wire.Format }

// callSeq sends bodies to a new handler serving formats (each body a
// request of the root session, or of the session its headers name:
// "SESSION PARENT CALL MODE\n" before the body) and returns every log it
// wrote, encoded.
func callSeq(formats []wire.Format, lineage wire.Lineage, bodies ...string) map[string]string {
	GinkgoHelper()
	return callScript(map[string][]any{
		"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "v2.4.1 it is.",
			[]session.Part{toolCall("call_2", "lookup", `{"key":"owner"}`)}, "team-atlas."},
	}, formats, lineage, bodies...)
}

// callScript is callSeq with the answers of script.
func callScript(answers map[string][]any, formats []wire.Format, lineage wire.Lineage, bodies ...string) map[string]string {
	GinkgoHelper()
	return serveBodies("/v1/chat/completions", answers, formats, lineage, bodies...)
}

// serveBodies sends bodies to POST path of a new handler serving formats
// from the answers of script — each body a request of the root session,
// or of the session its headers name ("SESSION PARENT CALL MODE\n" before
// the body) — and returns every log it wrote, encoded.
func serveBodies(path string, answers map[string][]any, formats []wire.Format, lineage wire.Lineage, bodies ...string) map[string]string {
	GinkgoHelper()
	reqs := make([]*http.Request, len(bodies))
	for i, b := range bodies {
		r := httptest.NewRequest(http.MethodPost, path, nil)
		if head, body, ok := strings.Cut(b, "\n"); ok {
			for j, v := range strings.Fields(head) {
				r.Header.Set([]string{wire.HeaderSession, wire.HeaderParent, wire.HeaderCall, wire.HeaderMode}[j], v)
			}
			b = body
		}
		r.Body = io.NopCloser(strings.NewReader(b))
		reqs[i] = r
	}
	return serveRequests(answers, formats, lineage, reqs)
}

// serveRequests serves reqs in turn on a new handler serving formats from
// the answers of script, and returns every log it wrote, encoded.
func serveRequests(answers map[string][]any, formats []wire.Format, lineage wire.Lineage, reqs []*http.Request) map[string]string {
	GinkgoHelper()
	store := memory.New()
	clock := time.UnixMilli(946684800000)
	h, err := wire.NewHandler(wire.Config{Driver: script(answers), Store: store, Formats: formats, Lineage: lineage, Clock: func() time.Time { return clock }})
	Expect(err).NotTo(HaveOccurred())
	for _, r := range reqs {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	_ = h.Close(context.Background()) // a conversation may end before its results
	return storedLogs(store)
}

// storedLogs is every log in store, each encoded as its file would be.
func storedLogs(store persistence.Store) map[string]string {
	GinkgoHelper()
	headers, err := store.List(context.Background())
	Expect(err).NotTo(HaveOccurred())
	logs := map[string]string{}
	for _, hd := range headers {
		l, err := store.Load(context.Background(), hd.ID)
		Expect(err).NotTo(HaveOccurred())
		logs[hd.ID] = string(session.Encode(&l.Header, l.Events))
	}
	return logs
}

var _ = Describe("a request read against the session's last one", func() {
	q1, q2 := user("Which release is current?"), user("And who owns it?")
	call1, call2 := asked([3]string{"call_1", "lookup", `{"key":"release"}`}), asked([3]string{"call_2", "lookup", `{"key":"owner"}`})
	r1, r2 := result("call_1", "v2.4.1"), result("call_2", "team-atlas")
	a1 := assistant("v2.4.1 it is.")
	stream := func(msgs ...string) string {
		return `{"model":"m","stream":true,"messages":[` + strings.Join(msgs, ",") + `],"temperature":0.2}`
	}

	DescribeTable("writes the logs a handler reading every request whole writes, byte for byte",
		func(want string, bodies ...string) {
			whole := callSeq([]wire.Format{wholeChat{wire.ChatCompletions}}, wire.Explicit, bodies...)
			got := callSeq([]wire.Format{wire.ChatCompletions}, wire.Explicit, bodies...)
			Expect(got).To(Equal(whole))
			Expect(got["root"]).To(ContainSubstring(want))
		},
		Entry("a conversation that grows", `"turn":2`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(q1, call1, r1, a1, q2, call2, r2)),
		Entry("a history rewritten by one byte", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(user("Which release is current!"), call1, r1, a1, q2)),
		Entry("a tool result rewritten", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, result("call_1", "v2.4.2"), a1, q2)),
		Entry("an answer sent back spaced otherwise", `"turn":2`,
			stream(q1), stream(q1, call1, r1), stream(q1, strings.ReplaceAll(call1, `,"type"`, ` ,"type"`), r1, a1, q2)),
		Entry("a history cut short", `history/replace`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(q1, call1, r1, a1, q2, call2, r2), stream(q2)),
		Entry("a setting changed", `"temperature":0.7`,
			stream(q1), strings.Replace(stream(q1, call1, r1), "0.2", "0.7", 1)),
		Entry("a system prompt added", `"systemChars":9`,
			stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, `{"role":"system","content":"Be brief."}`, q2)),
		Entry("a request the handler refuses, then the conversation again", `"turn":2`,
			stream(q1), stream(q1, call1, r1, `{"role":"wizard"}`), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2)),
		Entry("a request without the results it waits for, then with them", `"turn":1`,
			stream(q1), stream(user("Another question?")), stream(q1, call1, r1)),
	)

	It("writes the same logs when the sessions name themselves in headers, and when lineage is inferred", func() {
		bodies := []string{"root\n" + stream(q1), "root\n" + stream(q1, call1, r1), "root\n" + stream(user("Which release is current!"), call1, r1, a1, q2)}
		Expect(callSeq([]wire.Format{wire.ChatCompletions}, wire.Explicit, bodies...)).
			To(Equal(callSeq([]wire.Format{wholeChat{wire.ChatCompletions}}, wire.Explicit, bodies...)))
		plain := []string{stream(q1), stream(q1, call1, r1), stream(q1, call1, r1, a1, q2), stream(user("Which release is current!"), call1, r1, a1, q2, call2, r2)}
		Expect(callSeq([]wire.Format{wire.ChatCompletions}, wire.Infer, plain...)).
			To(Equal(callSeq([]wire.Format{wholeChat{wire.ChatCompletions}}, wire.Infer, plain...)))
	})

	It("digests an answer sent back with its reasoning, then without it, as sent each time", func() {
		// The log's answer has reasoning; the agent sends it back first with
		// its reasoning_content (the log's own conversation), then without:
		// a change the conversation does not see, but the request/header's
		// digests do. The messages the journal takes as repeated from the
		// last call must be only those read from the same bytes.
		answers := map[string][]any{"root": {
			session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartReasoning, Text: "thinking"}, session.TextPart("ok")}},
			"v2.4.1 it is.", "team-atlas.",
		}}
		reasoned := `{"role":"assistant","content":"ok","reasoning_content":"thinking"}`
		bodies := []string{stream(q1), stream(q1, reasoned, q2), stream(q1, assistant("ok"), q2, a1, user("Thanks."))}
		l, err := session.Read(strings.NewReader(callScript(answers, []wire.Format{wire.ChatCompletions}, wire.Explicit, bodies...)["root"]), "root")
		Expect(err).NotTo(HaveOccurred())
		var got [][]string
		for _, e := range l.Events {
			if e.Type == session.TypeRequestHeader {
				var h session.RequestHeaderData
				Expect(e.Decode(&h)).To(Succeed())
				got = append(got, h.MessageDigests)
			}
		}
		var want [][]string
		for _, b := range bodies {
			c, err := openai.DecodeRequest([]byte(b))
			Expect(err).NotTo(HaveOccurred())
			want = append(want, llm.RequestHeader("", &llm.Request{Messages: c.Messages}).MessageDigests)
		}
		Expect(got).To(Equal(want))
		Expect(want[2][1]).NotTo(Equal(want[1][1]), "the answer sent back without its reasoning is another message")
	})

	It("stores each call once, after its answer", func() {
		store := &countingStore{Store: memory.New()}
		h, err := wire.NewHandler(wire.Config{Driver: script(map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}, "v2.4.1 it is."}}), Store: store})
		Expect(err).NotTo(HaveOccurred())
		for _, b := range []string{stream(q1), stream(q1, call1, r1)} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(b)))
			Expect(w.Code).To(Equal(http.StatusOK), w.Body.String())
		}
		// The first call's tool calls, and the second's end of the turn;
		// neither request/header waited for a store before the answer.
		Expect(store.appends.Load()).To(BeEquivalentTo(2))
		Expect(h.Close(context.Background())).To(Succeed())
	})

	It("reads a body whole whatever Content-Length it claims", func() {
		body := stream(q1, call1, r1, a1, user(strings.Repeat("a long question ", 100)))
		for _, claimed := range []int64{-1, 0, 1, 511, 512, int64(len(body)) - 1, int64(len(body)), int64(len(body)) + 1, 1 << 40} {
			h, err := wire.NewHandler(wire.Config{Driver: sayDriver, Store: memory.New()})
			Expect(err).NotTo(HaveOccurred())
			r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
			r.ContentLength = claimed
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			Expect(w.Code).To(Equal(http.StatusOK), "Content-Length %d: %s", claimed, w.Body)
			Expect(h.Close(context.Background())).To(Succeed())
		}
	})

	It("compares a session's first request with its seed whole, though it repeats the last request of another", func() {
		// Under inferred lineage the fork child's first request is read
		// against its parent's last, which it repeats; but the child's seed
		// is the parent's completed turns, which that request rewrote.
		answers := func() map[string][]any {
			return map[string][]any{"root": {"ok", []session.Part{toolCall("call_f", "subagent_fork", `{"prompt":"What is the codeword?"}`)}}, "call_f": {"MARMALADE"}}
		}
		edited := user("Which release is current, please?")
		bodies := []string{stream(q1), stream(edited, assistant("ok"), q2), stream(edited, assistant("ok"), q2, user("What is the codeword?"))}
		got := callScript(answers(), []wire.Format{wire.ChatCompletions}, wire.Infer, bodies...)
		Expect(got).To(Equal(callScript(answers(), []wire.Format{wholeChat{wire.ChatCompletions}}, wire.Infer, bodies...)))
		Expect(got["root/call_f"]).To(ContainSubstring(`"trigger":"subagent"}}`+"\n"+`{"type":"history/replace"`), "the child's first request is recorded as sent")
	})
})

// countingStore counts the Appends that reach its store.
type countingStore struct {
	persistence.Store
	appends atomic.Int64
}

func (s *countingStore) Append(ctx context.Context, id string, events []session.Event) error {
	s.appends.Add(1)
	return s.Store.Append(ctx, id, events)
}
