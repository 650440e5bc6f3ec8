package recorder_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// retryingAgent is an agent on openai-go, which retries a 429 as it does by
// default, that keeps one conversation over the scenario's prompts and
// sends the second with say after it.
func retryingAgent(say string) agentsnap.Runtime {
	return wire.Runtime("retrying", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient), option.WithAPIKey("sk-test"), option.WithMaxRetries(2))
		var msgs []openai.ChatCompletionMessageParamUnion
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if i == 1 {
				prompt += say
			}
			msgs = append(msgs, openai.UserMessage(prompt))
			r, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "m", Messages: msgs})
			if err != nil {
				return err
			}
			msgs = append(msgs, openai.AssistantMessage(r.Choices[0].Message.Content))
			return nil
		})
	})
}

// A call the SDK retried while recording is two model calls in the log:
// the failed attempt and its retry, each with its request/header. Every
// view numbers them alike, so the call a drift names is the one an
// only-changed recording starts from and the one inspect and the report
// count to.
var _ = Describe("the numbers of the model calls after one the SDK retried while recording", func() {
	It("are the same in the drift, the only-changed recording and the log's model calls (inspect, report)", func(ctx SpecContext) {
		dir := filepath.Join(GinkgoT().TempDir(), "custom", "retried")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["One.", "Two."]}`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [
			{"error": {"code": "RATE_LIMIT", "message": "slow down"}}, {"text": "A"}, {"text": "B"}]}}`), 0o644)).To(Succeed())
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = retryingAgent("")
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		By("the log: the 429 and its retry are calls 1 and 2 of turn 1, the second prompt's call is call 3")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		calls := fx.Logs[0].ModelCalls()
		Expect(calls).To(HaveLen(3))
		Expect(calls[0]).To(And(HaveField("Turn", 1), HaveField("Step", 1), HaveField("Attempt", 1)))
		Expect(calls[1]).To(And(HaveField("Turn", 1), HaveField("Step", 1), HaveField("Attempt", 2)))
		Expect(calls[2]).To(And(HaveField("Turn", 2), HaveField("Step", 1), HaveField("Attempt", 1)))
		Expect(session.CountModelCalls(fx.Logs[0].Own())).To(Equal(3))

		By("the drift of the second prompt's request names call 3")
		o, err := judge.Replay(ctx, fx, judge.Options{Runtime: retryingAgent(" Changed.")})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift).To(And(HaveField("Call", 3), HaveField("Turn", 2), HaveField("Step", 1)))
		Expect(o.Report()).To(ContainSubstring("request drift: root (root session), model call 3 (turn 2 step 1): "))

		By("the only-changed recording replays the retried call's two and re-records from call 3")
		opts, err = recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime, opts.OnlyChanged = retryingAgent(" Changed."), true
		res, err := recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Reuse.Lines()).To(ContainElement(ContainSubstring("root: re-recorded from model call 3 (turn 2 step 1), 1 call sent to the model (")))
		Expect(res.Reuse.Lines()).To(ContainElement(ContainSubstring(") after 2 replayed: ")))
	})
})
