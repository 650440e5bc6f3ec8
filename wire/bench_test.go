package wire_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// BenchmarkAgentReplay replays an agent on the official OpenAI Go SDK
// (examples/sdkagent: streamed calls, four tool steps per turn) in process,
// three ways in the same run, each round alternating their order:
//
//   - wire: through wire.Transport, a replay as agentsnap runs it — fakellm
//     from the recorded logs, a handler writing every log to a memory store;
//   - httprr: canned bytes as httprr replays them: the request as written on
//     the wire is the key of a map, its answer an HTTP response read back
//     with http.ReadResponse;
//   - floor: the recorded answers handed back in call order, the request
//     read and dropped: what the SDK costs by itself.
//
// It reports each side's median time, allocations and bytes per call and
// the ratios wire/httprr; wire's cost above the floor shows how its cost
// per call grows with the conversation (turns 4, 16, 64: 20, 80, 320
// calls, the last request of 64 turns sending 641 messages).
//
//	go test -run '^$' -bench AgentReplay -benchtime 20x ./wire
func BenchmarkAgentReplay(b *testing.B) {
	for _, turns := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := recordBench(b, turns)
			sides := []benchSide{
				{name: "wire", run: rec.replayWire},
				{name: "httprr", run: rec.replayCanned},
				{name: "floor", run: rec.replayFloor},
			}
			for i := 0; b.Loop(); i++ {
				order := slices.Clone(sides)
				if i%2 == 1 {
					slices.Reverse(order)
				}
				for k := range order {
					s := findSide(sides, order[k].name)
					s.measure(b, rec.prompts)
				}
			}
			calls := float64(len(rec.canned))
			w, h, f := &sides[0], &sides[1], &sides[2]
			for _, s := range sides {
				b.ReportMetric(s.median(s.nanos)/calls/1e3, "µs/call-"+s.name)
				b.ReportMetric(s.median(s.allocs)/calls, "allocs/call-"+s.name)
			}
			b.ReportMetric(w.median(w.bytes)/calls, "B/call-wire")
			b.ReportMetric(h.median(h.bytes)/calls, "B/call-httprr")
			b.ReportMetric(w.median(w.nanos)/h.median(h.nanos), "wire/httprr-time")
			b.ReportMetric(w.median(w.allocs)/h.median(h.allocs), "wire/httprr-allocs")
			b.ReportMetric((w.median(w.nanos)-f.median(f.nanos))/calls/1e3, "µs/call-above-floor")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func findSide(sides []benchSide, name string) *benchSide {
	for i := range sides {
		if sides[i].name == name {
			return &sides[i]
		}
	}
	panic(name)
}

// benchSide is one way of replaying, and what each round of it cost.
type benchSide struct {
	name                 string
	run                  func(tb testing.TB, client *http.Client, prompts []string) func(testing.TB)
	nanos, allocs, bytes []float64
}

// benchSamples count allocations as testing's -benchmem does: small
// objects and tiny ones.
var benchSamples = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}

// measure runs the agent once on this side and keeps its cost.
func (s *benchSide) measure(tb testing.TB, prompts []string) {
	metrics.Read(benchSamples)
	objs, byts := benchSamples[0].Value.Uint64()+benchSamples[1].Value.Uint64(), benchSamples[2].Value.Uint64()
	start := time.Now()
	s.run(tb, nil, prompts)(tb)
	d := time.Since(start)
	metrics.Read(benchSamples)
	s.nanos = append(s.nanos, float64(d.Nanoseconds()))
	s.allocs = append(s.allocs, float64(benchSamples[0].Value.Uint64()+benchSamples[1].Value.Uint64()-objs))
	s.bytes = append(s.bytes, float64(benchSamples[2].Value.Uint64()-byts))
}

func (*benchSide) median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// benchRecording is one recorded run: the session logs, and every call as
// it crossed the wire.
type benchRecording struct {
	prompts []string
	logs    []*session.Log
	canned  []cannedCall
	byKey   map[string][]byte // httprr's map: request bytes -> response bytes
}

type cannedCall struct {
	key      string // the request as written on the wire
	response []byte // the HTTP response as written on the wire
	body     []byte
	header   http.Header
}

// benchDriver answers each user message with four steps of one lookup
// call each, then a text answer of some forty words, with usage.
var benchDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	steps := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != session.RoleUser; i-- {
		if req.Messages[i].Role == session.RoleAssistant {
			steps++
		}
	}
	usage := &session.Usage{InputTokens: 100 * len(req.Messages), OutputTokens: 40}
	if steps < 4 {
		id := fmt.Sprintf("call_%d_%d", req.Turn, steps+1)
		return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{
			toolCall(id, "lookup", fmt.Sprintf(`{"key":"%s"}`, []string{"release", "owner"}[steps%2])),
		}}, usage, "")), nil
	}
	text := fmt.Sprintf("Turn %d: the release is v2.4.1 and team-atlas owns it; the lookups agree, so there is nothing more to check "+
		"before the next step of the plan, which the user asked for <in order> & in full.", req.Turn)
	return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, usage, "")), nil
})

// recordBench records turns turns of the agent through the wire from
// benchDriver, keeping the logs and every call as it crossed the wire.
func recordBench(tb testing.TB, turns int) *benchRecording {
	rec := &benchRecording{byKey: map[string][]byte{}}
	for i := range turns {
		rec.prompts = append(rec.prompts, fmt.Sprintf("Question %d: which release is current, and who owns it?", i+1))
	}
	store := memory.New()
	h, err := wire.NewHandler(wire.Config{Driver: benchDriver, Store: store, Provider: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	client := &http.Client{Transport: &benchCapture{next: wire.Transport(h), rec: rec}}
	runBenchAgent(tb, client, rec.prompts)
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
		rec.logs = append(rec.logs, l)
	}
	if len(rec.canned) != 5*turns {
		tb.Fatalf("recorded %d calls, want %d", len(rec.canned), 5*turns)
	}
	return rec
}

// runBenchAgent runs the agent's turns with its calls through client.
func runBenchAgent(tb testing.TB, client *http.Client, prompts []string) {
	a := &sdkagent.Agent{
		Client: openai.NewClient(option.WithBaseURL(wire.BaseURL), option.WithHTTPClient(client),
			option.WithAPIKey("unused"), option.WithMaxRetries(0)),
		Model:    "bench-model",
		System:   "You are a release desk. Look facts up before you answer.",
		Tools:    []sdkagent.Tool{lookup},
		MaxSteps: 8,
	}
	s := a.NewSession()
	for _, p := range prompts {
		if _, err := s.Send(context.Background(), p); err != nil {
			tb.Fatal(err)
		}
	}
}

// replayWire replays the recording through the wire layer.
func (rec *benchRecording) replayWire(tb testing.TB, _ *http.Client, prompts []string) func(testing.TB) {
	drv, err := fakellm.New(rec.logs)
	if err != nil {
		tb.Fatal(err)
	}
	clock := time.UnixMilli(946684800000)
	h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New(), Provider: "bench", Clock: func() time.Time { return clock }})
	if err != nil {
		tb.Fatal(err)
	}
	runBenchAgent(tb, &http.Client{Transport: wire.Transport(h)}, prompts)
	return func(tb testing.TB) {
		if err := h.Close(context.Background()); err != nil {
			tb.Fatal(err)
		}
		if err := drv.Check(); err != nil {
			tb.Fatal(err)
		}
	}
}

// replayCanned serves each call from httprr's map.
func (rec *benchRecording) replayCanned(tb testing.TB, _ *http.Client, prompts []string) func(testing.TB) {
	runBenchAgent(tb, &http.Client{Transport: cannedTransport(rec.byKey)}, prompts)
	return func(testing.TB) {}
}

// replayFloor hands the recorded answers back in call order.
func (rec *benchRecording) replayFloor(tb testing.TB, _ *http.Client, prompts []string) func(testing.TB) {
	n := 0
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		c := rec.canned[n]
		n++
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: c.header, Body: io.NopCloser(bytes.NewReader(c.body)), ContentLength: int64(len(c.body)), Request: r}, nil
	})
	runBenchAgent(tb, &http.Client{Transport: rt}, prompts)
	return func(testing.TB) {}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// requestKey is the request as written on the wire, its headers but
// Content-Type dropped (httprr scrubs what differs between runs).
func requestKey(r *http.Request) (string, error) {
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

// cannedTransport answers each request with the response recorded for it.
func cannedTransport(byKey map[string][]byte) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		key, err := requestKey(r)
		if err != nil {
			return nil, err
		}
		resp, ok := byKey[key]
		if !ok {
			return nil, fmt.Errorf("httprr: no recorded response for %s %s", r.Method, r.URL)
		}
		return http.ReadResponse(bufio.NewReader(bytes.NewReader(resp)), r)
	})
}

// benchCapture records each call as it crosses the wire.
type benchCapture struct {
	next http.RoundTripper
	rec  *benchRecording
	mu   sync.Mutex
}

func (c *benchCapture) RoundTrip(r *http.Request) (*http.Response, error) {
	key, err := requestKey(r)
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
	c.rec.canned = append(c.rec.canned, cannedCall{key: key, response: []byte(wireBytes.String()), body: body, header: resp.Header.Clone()})
	c.rec.byKey[key] = []byte(wireBytes.String())
	c.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// BenchmarkAgentReplayWireOnly replays the recording of BenchmarkAgentReplay
// through the wire alone, for a profile of the wire's own cost:
//
//	go test -run '^$' -bench AgentReplayWireOnly -benchtime 20x -memprofile mem.out ./wire
func BenchmarkAgentReplayWireOnly(b *testing.B) {
	for _, turns := range []int{4, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := recordBench(b, turns)
			side := benchSide{name: "wire", run: rec.replayWire}
			for b.Loop() {
				side.measure(b, rec.prompts)
			}
			calls := float64(len(rec.canned))
			b.ReportMetric(side.median(side.nanos)/calls/1e3, "µs/call")
			b.ReportMetric(side.median(side.allocs)/calls, "allocs/call")
			b.ReportMetric(0, "ns/op")
		})
	}
}
