package wire_test

import (
	"context"
	"path/filepath"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

var _ = Describe("the key an agent sends", Label("secrets"), func() {
	// keyed is the SDK agent sending key as its API key.
	keyed := func(key string) agentsnap.Runtime {
		return wire.Runtime("sdk-test-agent", func(ctx context.Context, env *wire.Env) error {
			a := newSDKAgent(env)
			a.Client = openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient), option.WithAPIKey(key), option.WithMaxRetries(0))
			root := a.NewSession()
			return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
				_, err := root.Send(ctx, prompt)
				return err
			})
		})
	}

	It("may be a dummy that is also one of agentsnap's own labels in scenario.json: the recording is no leak", func() {
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime, opts.By = keyed("agentsnap"), "agentsnap (go test)" // as -record writes it
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(dir, fixture.RootLog)).To(BeAnExistingFile())
	})

	It("is refused when the author's part of scenario.json holds it, naming where it came from", func() {
		const key = "sk-agent-in-prompt-0123456789"
		dir := newFixture("mixed/sdk", `{"prompts": ["The key is `+key+`. Reply OK."], "agent": {"system": "You are terse."}}`, `{"sessions": {"root": [{"text": "OK"}]}}`)
		_, err := recordWith(dir, keyed(key))
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("the value of the bearer token in the Authorization header of the agent's request appears in scenario.json line 1"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})
})
