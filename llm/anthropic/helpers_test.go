package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/internal/drivertest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// testKey is a made-up key; specs assert it never leaks.
const testKey = "sk-ant-test-0123456789SECRET"

// provider is a stand-in server for the endpoint; its handler gets the
// 1-based number of the request.
type provider = drivertest.Server

func newProvider(handle func(w http.ResponseWriter, r *http.Request, n int)) *provider {
	p := drivertest.NewServer(GinkgoT(), func(w http.ResponseWriter, r *http.Request, n int) {
		defer GinkgoRecover()
		handle(w, r, n)
	})
	return p
}

// streaming serves events, each a JSON object, as the API does: an event
// line naming the data's type, then the data.
func streaming(events ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, sse(events...))
	}
}

// sse is events as the API streams them.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var typed struct{ Type string }
		Expect(json.Unmarshal([]byte(e), &typed)).To(Succeed(), e)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typed.Type, e)
	}
	return b.String()
}

// failing answers with an HTTP error status and a JSON body.
func failing(status int, body string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// Events of a typical answer.
const (
	msgStart = `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5",` +
		`"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`
	ping    = `{"type":"ping"}`
	msgStop = `{"type":"message_stop"}`
)

func blockStart(i int, block string) string {
	return fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block)
}

func delta(i int, d string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, d)
}

func textDelta(i int, text string) string {
	return delta(i, fmt.Sprintf(`{"type":"text_delta","text":%q}`, text))
}

func blockStop(i int) string { return fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i) }

func msgDelta(reason string, outputTokens int) string {
	return fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, reason, outputTokens)
}

// noWait records nothing and does not wait between retries.
func noWait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// newDriver builds a driver for p with the test key and a model; adjust
// changes the config first.
func newDriver(p *provider, adjust ...func(*anthropic.Config)) *anthropic.Driver {
	cfg := anthropic.Config{BaseURL: p.URL + "/v1", APIKey: testKey, Model: "claude-sonnet-4-5", Sleep: noWait}
	for _, f := range adjust {
		f(&cfg)
	}
	d, err := anthropic.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	return d
}

// collect runs one call and returns every chunk, checking the protocol.
func collect(ctx context.Context, d *anthropic.Driver, req *llm.Request) []session.Chunk {
	GinkgoHelper()
	seq, err := d.Stream(ctx, req)
	Expect(err).NotTo(HaveOccurred())
	chunks := drain(seq)
	Expect(anthropic.CheckProtocol(chunks)).To(Succeed(), strings.Join(jsonLines(chunks), "\n"))
	return chunks
}

// decode decodes an event stream body and checks the protocol.
func decode(body string) []session.Chunk {
	GinkgoHelper()
	chunks := anthropic.DecodeBody(context.Background(), strings.NewReader(body), testKey)
	Expect(anthropic.CheckProtocol(chunks)).To(Succeed(), strings.Join(jsonLines(chunks), "\n"))
	return chunks
}

// assemble builds the assistant message of chunks.
func assemble(chunks []session.Chunk) session.Message {
	var a llm.Assembler
	for _, c := range chunks {
		a.Add(c)
	}
	return a.Message()
}

// compactJSON is s as compact JSON.
func compactJSON(s string) string {
	var b bytes.Buffer
	Expect(json.Compact(&b, []byte(s))).To(Succeed())
	return b.String()
}

var (
	userRequest = drivertest.UserRequest
	drain       = drivertest.Drain
	jsonLines   = drivertest.JSONLines
)

// last returns the reason of the finish chunk that ends chunks.
func last(chunks []session.Chunk) *session.FinishReason { return drivertest.Last(GinkgoT(), chunks) }
