package vercelai_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// liveAnswers plays parallel/compare-releases the way a model would, keyed
// by the request's last message: a user message by its text, a tool result
// by the id of the call it answers.
var liveAnswers = map[string]nodetest.Answer{
	"user:Compare v2.4 and v2.5 in two sentences.": {Calls: []nodetest.Call{
		{ID: "call_live_24", Name: "research", Args: `{"question":"What shipped in v2.4?"}`},
		{ID: "call_live_25", Name: "research", Args: `{"question":"What shipped in v2.5?"}`},
	}},
	"user:What shipped in v2.4?":                                {Calls: []nodetest.Call{{ID: "call_live_notes_24", Name: "release_notes", Args: `{"version":"v2.4"}`}}},
	"tool:call_live_notes_24":                                   {Text: "v2.4 added SSO login and audit log export."},
	"user:What shipped in v2.5?":                                {Calls: []nodetest.Call{{ID: "call_live_notes_25", Name: "release_notes", Args: `{"version":"v2.5"}`}}},
	"tool:call_live_notes_25":                                   {Text: "v2.5 added offline mode and faster sync, and dropped the v1 API."},
	"tool:call_live_25":                                         {Text: "v2.4 brought SSO and audit export; v2.5 brings offline mode and drops the v1 API."},
	"user:For the changelog, in one line: what does v2.5 drop?": {Text: "The v1 API."},
}

var _ = Describe("recording the Vercel AI SDK agent live", Label("node"), func() {
	BeforeEach(kit.Require)

	It("records against a local OpenAI-compatible server through serve --live, the researchers at once, then replays offline", func(ctx SpecContext) {
		model := nodetest.NewModel(liveAnswers)
		server := httptest.NewServer(model)
		DeferCleanup(server.Close)
		const key = "sk-vercel-ai-0123456789abcdef"
		dir := nodetest.CopyFixture(parallel, scenario.File)
		GinkgoT().Setenv("CI", "") // serve --record refuses under CI
		live := nodetest.Environ([]string{"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "AGENTSNAP_BASE_URL", "AGENTSNAP_MODEL"}, "AGENTSNAP_API_KEY="+key)

		code, verdict := kit.Run(ctx, live, dir, dir, "--record", "--live", "--base-url", server.URL+"/v1", "--model", "fake-model")
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(ContainSubstring("recorded " + dir + ": 3 sessions, 7 model calls"))
		requests, models, auth, unknown := model.Seen()
		Expect(unknown).To(BeEmpty())
		Expect(requests).To(Equal(7), "root 3 (research, answer, turn 2), each researcher 2")
		Expect(models).To(Equal(map[string]bool{"fake-model": true}), "serve sends every call to --model")
		Expect(auth).To(Equal(map[string]bool{"Bearer " + key: true}), "serve's key, not the agent's")

		By("replaying with the server gone")
		server.Close()
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Scenario.Recorded.Runtime).To(Equal(runtimeName))
		Expect(fx.Scenario.Recorded.Provider).To(Equal("live"), "serve calls each request in the API the agent speaks")
		Expect(fx.Scenario.Recorded.Model).To(Equal("fake-model"))
		calls := map[string]session.Mode{}
		for _, l := range fx.Logs[1:] {
			calls[l.Header.ParentCallID] = l.Header.Mode
		}
		Expect(calls).To(Equal(map[string]session.Mode{"call_live_24": session.ModeSpawn, "call_live_25": session.ModeSpawn}))
		golden, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(golden)).To(ContainSubstring("result call_live_notes_25 (recorded): v2.5 (June): offline mode, 30% faster sync, drops the legacy v1 API."))
		Expect(string(golden)).To(ContainSubstring("assistant: v2.4 brought SSO and audit export; v2.5 brings offline mode and drops the v1 API."))

		code, verdict = kit.Run(ctx, nil, dir, dir)
		Expect(code).To(Equal(0), verdict)
		Expect(verdict).To(MatchRegexp(verdictOK(dir)))
		requests, _, _, _ = model.Seen()
		Expect(requests).To(Equal(7), "the replay made no request")

		ents, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(key), e.Name())
		}
	}, SpecTimeout(2*time.Minute))
})
