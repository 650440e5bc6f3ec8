// Package wirebench is the conversation the in-process replay benchmarks
// replay and the ways of replaying it they set side by side: an agent on
// an official SDK — OpenAI's Go SDK by default (examples/sdkagent:
// streamed calls, four tool steps per turn), or one of wire's agents on
// the other model APIs' SDKs — recorded once through the wire layer, then
// replayed through agentsnap's wire layer, as httprr replays canned bytes,
// and as the floor (the answers handed back in call order). wire's own
// benchmarks and the go-vcr side (a module of its own,
// internal/wirebench/govcr, so go-vcr stays out of go.mod) share it, so
// every peer replays the same bytes in the same run.
package wirebench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// TB is what the package needs of a test: testing.TB and Ginkgo's
// GinkgoT() both have it.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	TempDir() string
}

// Agent is an agent the benchmarks replay: it runs one turn per prompt,
// its calls through client, and stops the test on an error. Answered by
// the recording's driver (four lookup steps, then a text answer), each
// turn is five calls, which RecordAgent checks.
type Agent func(tb TB, client *http.Client, prompts []string)

// Recording is one recorded run: the agent, the prompts, the session logs,
// and every call as it crossed the wire, in call order. Every side replays
// the agent it was recorded with.
type Recording struct {
	Agent   Agent
	Prompts []string
	Logs    []*session.Log
	Calls   []Call
	byKey   map[string][]byte // httprr's map: request bytes -> response bytes
}

// Call is one call as it crossed the wire.
type Call struct {
	Key      string // the request as written on the wire (RequestKey)
	Response []byte // the HTTP response as written on the wire
	Body     []byte
	Header   http.Header
}

// driver answers each user message with four steps of one lookup call
// each, then a text answer of some forty words, with usage.
var driver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	steps := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != session.RoleUser; i-- {
		if req.Messages[i].Role == session.RoleAssistant {
			steps++
		}
	}
	usage := &session.Usage{InputTokens: 100 * len(req.Messages), OutputTokens: 40}
	if steps < 4 {
		id := fmt.Sprintf("call_%d_%d", req.Turn, steps+1)
		return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{{
			Type: session.PartToolCall, ID: id, Name: "lookup", Arguments: fmt.Sprintf(`{"key":"%s"}`, []string{"release", "owner"}[steps%2]),
		}}}, usage, "")), nil
	}
	text := fmt.Sprintf("Turn %d: the release is v2.4.1 and team-atlas owns it; the lookups agree, so there is nothing more to check "+
		"before the next step of the plan, which the user asked for <in order> & in full.", req.Turn)
	return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, usage, "")), nil
})

// Facts is Lookup's table.
var Facts = map[string]string{"release": "v2.4.1", "owner": "team-atlas"}

// Lookup is the agent's one tool: it looks a fact up by key in Facts. The
// specs of wire and serve give their SDK agents it too.
var Lookup = sdkagent.Tool{
	Name:        "lookup",
	Description: "Look up a fact by key.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"key": map[string]string{"type": "string"}},
		"required":   []string{"key"},
	},
	Run: func(_ context.Context, args string) (string, error) {
		var in struct{ Key string }
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return "", err
		}
		return Facts[in.Key], nil
	},
}

// Record records turns turns of the OpenAI Chat Completions agent
// (RunAgent): RecordAgent of it.
func Record(tb TB, turns int) *Recording {
	tb.Helper()
	return RecordAgent(tb, RunAgent, turns)
}

// RecordAgent records turns turns of agent through the wire, keeping the
// logs and every call as it crossed the wire.
func RecordAgent(tb TB, agent Agent, turns int) *Recording {
	tb.Helper()
	rec := &Recording{Agent: agent, byKey: map[string][]byte{}}
	for i := range turns {
		rec.Prompts = append(rec.Prompts, fmt.Sprintf("Question %d: which release is current, and who owns it?", i+1))
	}
	store := memory.New()
	h, err := wire.NewHandler(wire.Config{Driver: driver, Store: store, Provider: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	agent(tb, &http.Client{Transport: &capture{next: wire.Transport(h), rec: rec}}, rec.Prompts)
	if err := h.Close(context.Background()); err != nil {
		tb.Fatal(err)
	}
	headers, err := store.List(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, hd := range headers {
		l, err := store.Load(context.Background(), hd.ID)
		if err != nil {
			tb.Fatal(err)
		}
		rec.Logs = append(rec.Logs, l)
	}
	if len(rec.Calls) != 5*turns {
		tb.Fatalf("recorded %d calls, want %d", len(rec.Calls), 5*turns)
	}
	return rec
}

// RunAgent is the Agent on the OpenAI Chat Completions API: it runs the
// sdkagent's turns, one per prompt, with its calls through client.
func RunAgent(tb TB, client *http.Client, prompts []string) {
	tb.Helper()
	a := &sdkagent.Agent{
		Client: openai.NewClient(option.WithBaseURL(wire.BaseURL), option.WithHTTPClient(client),
			option.WithAPIKey("unused"), option.WithMaxRetries(0)),
		Model:    "bench-model",
		System:   "You are a release desk. Look facts up before you answer.",
		Tools:    []sdkagent.Tool{Lookup},
		MaxSteps: 8,
	}
	s := a.NewSession()
	for _, p := range prompts {
		if _, err := s.Send(context.Background(), p); err != nil {
			tb.Fatal(err)
		}
	}
}

// RequestKey is the request as written on the wire, its headers but
// Content-Type dropped (httprr scrubs what differs between runs); r's body
// is left to be read again.
func RequestKey(r *http.Request) (string, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return "", err
	}
	r.Body.Close()
	clone := r.Clone(r.Context())
	clone.Header = http.Header{"Content-Type": r.Header["Content-Type"]}
	clone.Body = io.NopCloser(bytes.NewReader(body))
	clone.ContentLength = int64(len(body))
	var b bytes.Buffer
	if err := clone.Write(&b); err != nil {
		return "", err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return b.String(), nil
}

// capture records each call as it crosses the wire.
type capture struct {
	next http.RoundTripper
	rec  *Recording
	mu   sync.Mutex
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	key, err := RequestKey(r)
	if err != nil {
		return nil, err
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var wireBytes strings.Builder
	fmt.Fprintf(&wireBytes, "HTTP/1.1 %d %s\r\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	header := resp.Header.Clone()
	header.Set("Content-Length", fmt.Sprint(len(body)))
	_ = header.Write(&wireBytes)
	wireBytes.WriteString("\r\n")
	wireBytes.Write(body)
	c.mu.Lock()
	c.rec.Calls = append(c.rec.Calls, Call{Key: key, Response: []byte(wireBytes.String()), Body: body, Header: resp.Header.Clone()})
	c.rec.byKey[key] = []byte(wireBytes.String())
	c.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
