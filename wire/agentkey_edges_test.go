package wire_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The agent's calls on a context of their own: one not derived from the
// context Run gets, as an agent that starts its own (context.Background(),
// a framework's) makes them; with InferLineage it needs nothing of Run's.
// Each sends key as its SDK sends an API key (the Anthropic agent as an
// x-api-key header its client adds).
var detachedAgents = map[string]func(key string) agentsnap.Runtime{
	"Authorization": func(key string) agentsnap.Runtime {
		return wire.Runtime("sdk-test-agent", func(ctx context.Context, env *wire.Env) error {
			a := newSDKAgent(env)
			a.Client = openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient), option.WithAPIKey(key), option.WithMaxRetries(0))
			root := a.NewSession()
			return env.EachPrompt(ctx, func(_ context.Context, _ int, prompt string) error {
				_, err := root.Send(context.Background(), prompt)
				return err
			})
		}, wire.InferLineage())
	},
	"x-api-key": func(key string) agentsnap.Runtime {
		return wire.Runtime("claude-test-agent", func(ctx context.Context, env *wire.Env) error {
			a := newClaudeAgent(env.Scenario.Agent, sdkoption.WithBaseURL(strings.TrimSuffix(env.BaseURL, "/v1")), sdkoption.WithHTTPClient(env.HTTPClient), sdkoption.WithHeader("X-Api-Key", key))
			root := &claudeSession{agent: a}
			return env.EachPrompt(ctx, func(_ context.Context, _ int, prompt string) error {
				_, err := root.send(context.Background(), prompt)
				return err
			})
		}, wire.InferLineage())
	},
	"x-goog-api-key": func(key string) agentsnap.Runtime {
		return wire.Runtime("genai-test-agent", func(ctx context.Context, env *wire.Env) error {
			a, err := newGenaiAgent(context.Background(), env.Scenario.Agent, env.HTTPClient, strings.TrimSuffix(env.BaseURL, "/v1"), key)
			if err != nil {
				return err
			}
			root, err := a.root(context.Background())
			if err != nil {
				return err
			}
			return env.EachPrompt(ctx, func(_ context.Context, _ int, prompt string) error {
				_, err := root.Send(context.Background(), prompt)
				return err
			})
		}, wire.InferLineage())
	},
}

var _ = Describe("the key an agent sends on a context of its own", Label("secrets"), func() {
	DescribeTable("is a secret of the recording all the same: an answer that echoes it is refused, naming the header, and nothing is written",
		func(header, source string) {
			const key = "sk-detached-agent-0123456789"
			sc, pb := echoKey(key)
			dir := filepath.Join(GinkgoT().TempDir(), "custom", "detached-key")
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(sc), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(pb), 0o644)).To(Succeed())
			opts, err := recorder.PlaybookOptions(dir, 0)
			Expect(err).NotTo(HaveOccurred())
			opts.Runtime = detachedAgents[header](key)
			_, err = recorder.Record(context.Background(), dir, opts)
			Expect(err).To(MatchError(recorder.ErrSecret))
			Expect(err.Error()).To(ContainSubstring("the value of " + source + " of the agent's request appears in "))
			Expect(err.Error()).NotTo(ContainSubstring(key[4:]))
			entries, err := os.ReadDir(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(entries).To(HaveLen(2), "scenario.json and playbook.json as they were, no log")
		},
		Entry("openai-go, Authorization: Bearer", "Authorization", "the bearer token in the Authorization header"),
		Entry("anthropic-sdk-go, x-api-key", "x-api-key", "the x-api-key header"),
		Entry("genai, x-goog-api-key", "x-goog-api-key", "the x-goog-api-key header"),
	)
})
