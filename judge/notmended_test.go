package judge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// stray is a request an agent sends beside its model calls: to path under
// the API's host (wire.BaseURL without /v1), with body and, if set, header.
type stray struct {
	path, body string
	header     http.Header
}

// wireAgent is an agent on the in-process wire that sends each prompt with
// say after it to Chat Completions. Before that it sends extra, if set,
// which agentsnap does not serve: with stop set its run returns the
// refusal, else it swallows it, as agents do.
func wireAgent(say string, extra *stray, stop bool) agentsnap.Runtime {
	return wire.Runtime("wire-agent", func(ctx context.Context, env *wire.Env) error {
		host := strings.TrimSuffix(env.BaseURL, "/v1")
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			if extra != nil {
				if err := post(ctx, env, host+extra.path, extra.body, extra.header); err != nil && stop {
					return err
				}
			}
			content, _ := json.Marshal(prompt + say)
			return post(ctx, env, env.BaseURL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":`+string(content)+`}]}`, nil)
		})
	})
}

// post sends body to url with header through env's client and reads the
// answer whole.
func post(ctx context.Context, env *wire.Env, url, body string, header http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := env.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: the model API answered %s", url, resp.Status)
	}
	return nil
}

var _ = Describe("the advice a verdict ends with, when the replay failed with an error re-recording does not mend", func() {
	const pointer = "Re-recording would not mend this (the run fails the same way while recording): do what the replay error says, then run again."

	// recorded records custom/stray with the agent that makes its model
	// calls only, and returns the fixture.
	recorded := func() *fixture.Fixture {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "custom", "stray")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Say OK."]}`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [{"text": "OK"}]}}`), 0o644)).To(Succeed())
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = wireAgent("", nil, false)
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		return fx
	}

	DescribeTable("is the error's own, not the re-recording, for a request the in-process wire does not serve",
		func(extra stray, refusal, advice string) {
			fx := recorded()
			o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: wireAgent("", &extra, false)})
			Expect(err).NotTo(HaveOccurred())
			Expect(o.Passed()).To(BeFalse())
			report := o.Report()
			Expect(report).To(ContainSubstring("\nreplay errors:\n  " + refusal))
			Expect(report).To(ContainSubstring(advice))
			Expect(report).To(HaveSuffix("\n\n" + pointer + "\n"))
			Expect(report).NotTo(ContainSubstring("re-record the scenario"))
			Expect(report).NotTo(ContainSubstring(judge.RecordCommand(o)))
		},
		Entry("an endpoint beside the model calls: POST /v1/embeddings", stray{"/v1/embeddings", `{"model":"e","input":"x"}`, nil},
			"wire: POST /v1/embeddings is not a model call agentsnap serves", "point the agent's SDK at one of those APIs"),
		Entry("a body with no conversation on a model call's path", stray{"/v1/chat/completions", `{"model":"m"}`, nil},
			"wire: POST /v1/chat/completions: the body is no model call of OpenAI Chat Completions", "send the conversation there"),
		Entry("a child session naming a parent that made no call (lineage headers)", stray{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			http.Header{wire.HeaderSession: {"child"}, wire.HeaderParent: {"ghost"}, wire.HeaderCall: {"call_1"}, wire.HeaderMode: {"spawn"}}},
			`wire: child session "child" names parent "ghost", which has made no call`, "its children name it by its Agentsnap-Session"),
		Entry("Gemini's streamGenerateContent in an encoding agentsnap does not write (alt=proto)", stray{"/v1beta/models/m:streamGenerateContent?alt=proto", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, nil},
			"wire: POST /v1beta/models/m:streamGenerateContent: streamGenerateContent with alt=proto", "ask for server-sent events (alt=sse"),
	)

	It("is the error's own in the replay driver's verdict and the golden's message too, when the agent stopped at the refused call", func() {
		fx := recorded()
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: wireAgent("", &stray{"/v1/embeddings", `{"input":"x"}`, nil}, true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Consumption).To(HaveOccurred(), "the recorded call was never made")
		report := o.Report()
		Expect(report).To(ContainSubstring("wire: POST /v1/embeddings is not a model call agentsnap serves"))
		Expect(report).To(ContainSubstring("1 recorded session not fully replayed — the replay errors below say why\n"))
		By("the driver's check itself, which check's summary line and a schedule search show too")
		Expect(o.Consumption.Error()).To(HavePrefix("fakellm: recording not consumed: 1 recorded session not fully replayed — the replay errors below say why\n"))
		Expect(report).To(HaveSuffix(pointer + "\n"))
		Expect(report).NotTo(ContainSubstring(judge.RecordCommand(o)))
		g := judge.CompareGolden(o)
		Expect(g.Message).To(ContainSubstring("the transcript differs from"))
		Expect(g.Message).To(HaveSuffix(pointer))
		Expect(g.Message).NotTo(ContainSubstring(judge.RecordCommand(o)))
	})

	It("is still the re-recording for a replay whose request drifted", func() {
		fx := recorded()
		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: wireAgent(" Now.", nil, false)})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Report()).To(HaveSuffix("If the change is intended, re-record the scenario:\n  " + judge.RecordCommand(o) + "\n"))
		Expect(o.Report()).NotTo(ContainSubstring(pointer))
	})
})
