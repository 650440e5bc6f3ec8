package wire_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/aimock"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// startAimock starts aimock with fixtures (its own JSON format), or skips
// the spec with the install hint when aimock is missing and not required.
func startAimock(ctx context.Context, fixtures string) *aimock.Server {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "aimock.json")
	Expect(os.WriteFile(path, []byte(fixtures), 0o644)).To(Succeed())
	srv, err := aimock.Start(ctx, path)
	if errors.Is(err, aimock.ErrMissing) && !aimock.Required() {
		Skip(err.Error())
	}
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(srv.Stop)
	return srv
}

// forkAimock answers the fork scenario the way forkPlaybook does, matched
// by the tool result a request ends with or else its last user message
// (aimock takes the first fixture that matches).
const forkAimock = `{"fixtures": [
  {"match": {"toolCallId": "call_l"}, "response": {"content": "v2.4.1"}},
  {"match": {"toolCallId": "call_s"}, "response": {"content": "MARMALADE, and release v2.4.1."}},
  {"match": {"userMessage": "The codeword is MARMALADE. Reply OK."}, "response": {"content": "OK"}},
  {"match": {"userMessage": "Fork a child for the codeword and spawn one for the release, at once."}, "response": {"toolCalls": [
    {"id": "call_f", "name": "subagent_fork", "arguments": "{\"prompt\":\"What is the codeword?\"}"},
    {"id": "call_s", "name": "subagent_spawn", "arguments": "{\"prompt\":\"Look up the release.\"}"}]}},
  {"match": {"userMessage": "What is the codeword?"}, "response": {"content": "MARMALADE"}},
  {"match": {"userMessage": "Look up the release."}, "response": {"toolCalls": [{"id": "call_l", "name": "lookup", "arguments": "{\"key\":\"release\"}"}]}}
]}`

var _ = Describe("a live recording through the wire layer against aimock, an independent server", func() {
	It("records the SDK agent's tree from OpenAI Chat Completions and replays it offline", NodeTimeout(2*time.Minute), func(ctx SpecContext) {
		srv := startAimock(ctx, forkAimock)
		dir := newFixture("mixed/sdk", forkScenario, forkPlaybook)
		drv, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "aimock-test-key"})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gpt-4o")
		opts.Runtime = sdkRuntime
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).NotTo(HaveOccurred())

		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(3))
		Expect(fx.Logs[1].Header).To(HaveField("ParentCallID", "call_f"))
		Expect(fx.Logs[1].Header.Mode).To(Equal(session.ModeFork))
		Expect(fx.Logs[2].Header).To(HaveField("ParentCallID", "call_s"))
		Expect(string(mustRead(filepath.Join(dir, "transcript.golden")))).To(ContainSubstring("assistant: MARMALADE, and release v2.4.1."))
		o, err := judge.Replay(ctx, fx, harness.Options{Runtime: sdkRuntime})
		Expect(err).NotTo(HaveOccurred())
		Expect(o).To(harness.MatchRecording())
	})
})
