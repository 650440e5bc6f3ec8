package wire_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/wirebench"
	"github.com/agentsnap/agentsnap/wire"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3/option"
)

// BenchmarkAgentReplayAPIs is BenchmarkAgentReplay for the other three
// model APIs the wire layer serves, each with its official SDK as the
// client — the agents of wire's specs, one lookup tool, four lookup steps
// per turn, then a text answer, streamed:
//
//   - anthropic: claudeAgent on anthropic-sdk-go (Messages);
//   - gemini: genaiAgent on google.golang.org/genai (streamGenerateContent);
//   - responses: respAgent on openai-go's Responses, with Items: the whole
//     conversation sent each call, store false, as Chat does;
//   - responses-chained: respAgent naming the previous response
//     (previous_response_id), the wire layer keeping the conversation.
//
// Each replays its recording at 4, 16 and 64 turns through the wire, as
// httprr does and as the floor, and reports what BenchmarkAgentReplay
// does. No SDK needs scrubbing beyond wirebench.RequestKey's: what differs
// between runs (the SDKs' X-Stainless-* and x-goog-api-client headers,
// timeouts, retry counts) is all in headers, which it drops.
//
//	go test -run '^$' -bench AgentReplayAPIs -benchtime 20x ./wire
func BenchmarkAgentReplayAPIs(b *testing.B) {
	for _, api := range []struct {
		name  string
		agent wirebench.Agent
	}{
		{"anthropic", claudeBench},
		{"gemini", genaiBench},
		{"responses", respBench(true)},
		{"responses-chained", respBench(false)},
	} {
		b.Run(api.name, func(b *testing.B) { wirebench.BenchAgent(b, api.agent) })
	}
}

// benchSettings is the agents' scenario settings: sdkagent's system
// prompt in wirebench.
var benchSettings = json.RawMessage(`{"system":"You are a release desk. Look facts up before you answer."}`)

// benchOrigin is the wire's origin: the Anthropic and genai SDKs append
// their own version to the base URL.
var benchOrigin = strings.TrimSuffix(wire.BaseURL, "/v1")

// claudeBench runs claudeAgent's turns (streamed, no retries) with its
// calls through client.
func claudeBench(tb wirebench.TB, client *http.Client, prompts []string) {
	tb.Helper()
	a := newClaudeAgent(benchSettings, sdkoption.WithBaseURL(benchOrigin), sdkoption.WithHTTPClient(client))
	s := &claudeSession{agent: a}
	for _, p := range prompts {
		if _, err := s.send(context.Background(), p); err != nil {
			tb.Fatal(err)
		}
	}
}

// genaiBench runs genaiAgent's turns (streamed, its own history; the SDK
// never retries) with its calls through client.
func genaiBench(tb wirebench.TB, client *http.Client, prompts []string) {
	tb.Helper()
	ctx := context.Background()
	a, err := newGenaiAgent(ctx, benchSettings, client, benchOrigin, "")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := a.root(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range prompts {
		if _, err := s.Send(ctx, p); err != nil {
			tb.Fatal(err)
		}
	}
}

// respBench runs respAgent's turns (streamed, no retries) with its calls
// through client: with items, the whole conversation each call; without,
// chained by previous_response_id.
func respBench(items bool) wirebench.Agent {
	return func(tb wirebench.TB, client *http.Client, prompts []string) {
		tb.Helper()
		a := newRespAgent(benchSettings, option.WithBaseURL(wire.BaseURL), option.WithHTTPClient(client))
		a.Items = items
		s := a.root()
		for _, p := range prompts {
			if _, err := s.Send(context.Background(), p); err != nil {
				tb.Fatal(err)
			}
		}
	}
}
