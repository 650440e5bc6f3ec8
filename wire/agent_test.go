package wire_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/internal/wirebench"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// sdkRuntime is an agent on the official OpenAI Go SDK (examples/sdkagent)
// as the runtime under test, in process: its only agentsnap lines are the
// HTTP client and the session contexts of its children (wire.Spawn,
// wire.Fork), several children at once.
var sdkRuntime = sdkRuntimeWith(func(*sdkagent.Agent) {})

// sdkRuntimeWith is the agent with a change, under the same name.
func sdkRuntimeWith(change func(*sdkagent.Agent)) agentsnap.Runtime {
	return sdkRuntimeOpts(change)
}

// newSDKAgent is the agent as these tests run it: the scenario's system
// prompt ({"system": "..."}) and depth limit (maxDepth, 2 by default), the
// recording's model name, a lookup tool beside its own, and each child's
// calls tagged with its session.
func newSDKAgent(env *wire.Env) *sdkagent.Agent {
	var cfg struct{ System string }
	_ = json.Unmarshal(env.Scenario.Agent, &cfg) // a missing prompt shows as drift
	return &sdkagent.Agent{
		Client: openai.NewClient(
			option.WithBaseURL(env.BaseURL),
			option.WithHTTPClient(env.HTTPClient),
			option.WithAPIKey("unused"), // never sent anywhere: env.HTTPClient serves in process
			option.WithMaxRetries(0),    // a replay serves each recorded call once
		),
		Model:        env.Model,
		System:       cfg.System,
		MaxDepth:     cmp.Or(env.Scenario.MaxDepth, 2),
		Tools:        []sdkagent.Tool{lookup},
		ChildContext: tagChild,
	}
}

// tagChild names a child's session in the context of its calls.
func tagChild(ctx context.Context, callID string, fork bool) context.Context {
	if fork {
		return wire.Fork(ctx, callID)
	}
	return wire.Spawn(ctx, callID)
}

// untagged runs the children on their parent's context: an agent that
// names no sessions, for wire.InferLineage.
func untagged(a *sdkagent.Agent) { a.ChildContext = nil }

// temperature sends t with every call.
func temperature(t float64) func(*sdkagent.Agent) {
	return func(a *sdkagent.Agent) { a.Temperature = openai.Float(t) }
}

// wholeAnswers asks for whole answers. A request for a stream fails, so
// a spec of whole answers cannot pass on streams.
func wholeAnswers(a *sdkagent.Agent) {
	a.WholeAnswers = true
	refuseStreams := func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		var body struct{ Stream bool }
		if err := readJSON(&r.Body, &body); err != nil || body.Stream {
			return nil, fmt.Errorf("wholeAnswers: the agent asked for a stream (%v)", err)
		}
		return next(r)
	}
	a.Client = openai.NewClient(append(slices.Clone(a.Client.Options), option.WithMiddleware(refuseStreams))...)
}

// lookup is a tool of the test's own beside the agent's (wirebench.Lookup:
// a fact by key from wirebench.Facts), which the playbooks call.
var lookup = wirebench.Lookup
