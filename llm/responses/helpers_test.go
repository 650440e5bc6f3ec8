package responses_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// testKey is a made-up key; specs assert it never leaks.
const testKey = "sk-test-responses-0123456789SECRET"

// model is an httptest server standing in for a Responses endpoint. It
// keeps each request and answers with the events of answer.
type model struct {
	URL string

	mu       sync.Mutex
	requests []request
}

type request struct {
	path   string
	header http.Header
	body   map[string]json.RawMessage
}

func newModel(answer func(w http.ResponseWriter, n int)) *model {
	m := &model{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		b, _ := io.ReadAll(r.Body)
		var body map[string]json.RawMessage
		Expect(json.Unmarshal(b, &body)).To(Succeed(), string(b))
		m.mu.Lock()
		m.requests = append(m.requests, request{path: r.URL.Path, header: r.Header.Clone(), body: body})
		n := len(m.requests)
		m.mu.Unlock()
		answer(w, n)
	}))
	DeferCleanup(srv.Close)
	m.URL = srv.URL + "/v1"
	return m
}

func (m *model) last() request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[len(m.requests)-1]
}

// events answers with these events, each named by its type as OpenAI
// sends them, and ends the stream.
func events(evs ...string) func(http.ResponseWriter, int) {
	return func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, sse(evs...))
	}
}

// sse is the event stream of evs, each a JSON event object.
func sse(evs ...string) string {
	var b strings.Builder
	for i, e := range evs {
		var typ struct{ Type string }
		_ = json.Unmarshal([]byte(e), &typ)
		if typ.Type != "" {
			fmt.Fprintf(&b, "event: %s\n", typ.Type)
		}
		e = strings.Replace(e, "{", fmt.Sprintf(`{"sequence_number":%d,`, i), 1)
		fmt.Fprintf(&b, "data: %s\n\n", e)
	}
	return b.String()
}

// Events of the Responses stream, as OpenAI sends them.
func created() string {
	return `{"type":"response.created","response":{"id":"resp_live","object":"response","created_at":1,"status":"in_progress","model":"gpt-test","output":[]}}`
}

func added(index int, item string) string {
	return fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":%s}`, index, item)
}

func done(index int, item string) string {
	return fmt.Sprintf(`{"type":"response.output_item.done","output_index":%d,"item":%s}`, index, item)
}

func textDelta(item, delta string) string {
	return fmt.Sprintf(`{"type":"response.output_text.delta","item_id":%q,"output_index":0,"content_index":0,"delta":%q,"logprobs":[]}`, item, delta)
}

func argsDelta(item, delta string) string {
	return fmt.Sprintf(`{"type":"response.function_call_arguments.delta","item_id":%q,"output_index":0,"delta":%q}`, item, delta)
}

func summaryDelta(item string, part int, delta string) string {
	return fmt.Sprintf(`{"type":"response.reasoning_summary_text.delta","item_id":%q,"output_index":0,"summary_index":%d,"delta":%q}`, item, part, delta)
}

func message(id, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, id, text)
}

func call(id, callID, name, args string) string {
	return fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q,"arguments":%q,"status":"completed"}`, id, callID, name, args)
}

func completed(usage string, output ...string) string {
	return fmt.Sprintf(`{"type":"response.completed","response":{"id":"resp_live","object":"response","status":"completed","output":[%s],"usage":%s}}`, strings.Join(output, ","), usage)
}

const usage = `{"input_tokens":12,"input_tokens_details":{"cached_tokens":8},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":17}`

// decode decodes a stream body and checks the chunks keep the protocol.
func decode(ctx context.Context, body string) []session.Chunk {
	GinkgoHelper()
	chunks := responses.DecodeBody(ctx, strings.NewReader(body), testKey)
	Expect(responses.CheckProtocol(chunks)).To(Succeed(), strings.Join(jsonLines(chunks), "\n"))
	return chunks
}

func newDriver(m *model) *live.Driver {
	d, err := responses.New(responses.Config{BaseURL: m.URL, APIKey: testKey, Model: "gpt-test", MaxRetries: -1})
	Expect(err).NotTo(HaveOccurred())
	return d
}

// send makes one call of req and returns its chunks.
func send(ctx context.Context, d *live.Driver, req *llm.Request) []session.Chunk {
	GinkgoHelper()
	seq, err := d.Stream(ctx, req)
	Expect(err).NotTo(HaveOccurred())
	out := drivertest.Drain(seq)
	Expect(responses.CheckProtocol(out)).To(Succeed())
	return out
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	Expect(json.Compact(&b, raw)).To(Succeed())
	return b.String()
}

func bg() context.Context { return context.Background() }

var jsonLines = drivertest.JSONLines

// last returns the reason of the finish chunk that ends chunks.
func last(chunks []session.Chunk) *session.FinishReason { return drivertest.Last(GinkgoT(), chunks) }
