package wire_test

import (
	"context"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/internal/sdktest"
	"github.com/agentsnap/agentsnap/wire"
	"github.com/openai/openai-go/v3/option"
)

// sdkRuntime is an agent on the official OpenAI Go SDK (internal/sdktest)
// as the runtime under test, in process: its only agentsnap lines are the
// HTTP client and the session contexts of its children (wire.Spawn,
// wire.Fork), several children at once.
var sdkRuntime = sdkRuntimeWith(func(*sdktest.Agent) {})

// sdkRuntimeWith is the agent with a change, under the same name.
func sdkRuntimeWith(change func(*sdktest.Agent)) agentsnap.Runtime {
	return wire.Runtime("sdk-test-agent", func(ctx context.Context, env *wire.Env) error {
		a := sdktest.New(env.Scenario.Agent, option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient))
		change(a)
		root := a.Root()
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := root.Send(ctx, prompt)
			return err
		})
	})
}
