package wire_test

import (
	"context"
	"encoding/json"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// kitRuntime is the SDK agent as a runtime that treats a failed turn as
// the recorded outcome it is — the agent says so and takes the next prompt
// — rather than stopping the run: what the kit asks of a runtime. A
// request the wire layer could not serve still fails the run (Close).
func kitRuntime(change func(*sdkagent.Agent), opts ...wire.Option) agentsnap.Runtime {
	return wire.Runtime("sdk-test-agent", func(ctx context.Context, env *wire.Env) error {
		a := newSDKAgent(env)
		change(a)
		root := a.NewSession()
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if _, err := root.Send(ctx, prompt); err != nil {
				env.Logf("prompt %d: the agent says: %v", i+1, err)
			}
			return nil
		})
	}, opts...)
}

var _ = Describe("the conformance kit against the wire layer", func() {
	It("finds no violation in the logs the wire writes for an SDK agent, tagged or inferred", func(ctx SpecContext) {
		inferred := kitRuntime(untagged, wire.InferLineage())
		for _, rt := range []agentsnap.Runtime{kitRuntime(func(*sdkagent.Agent) {}), inferred} {
			// The SDK test agent never retries a failed model call.
			skip := []string{"model-retry"}
			if rt == inferred {
				// A fork in the parent's first turn inherits nothing: its
				// calls look like a spawn child's, and inference records one.
				skip = append(skip, "fork-first-turn")
			}
			res, err := conformance.Check(ctx, conformance.Config{
				Skip:  skip,
				New:   func() agentsnap.Runtime { return rt },
				Agent: json.RawMessage(`{"system": "You are a test agent."}`),
				Tool:  conformance.ToolCall{Name: "lookup", Arguments: json.RawMessage(`{"key":"release"}`)},
				DelegateArgs: func(_, prompt string) json.RawMessage {
					b, _ := json.Marshal(map[string]string{"prompt": prompt})
					return b
				},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Err()).NotTo(HaveOccurred())
		}
	})
})
