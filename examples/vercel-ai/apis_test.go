package vercelai_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/examples/internal/nodetest"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/aimock"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// agentAPIs names, for each model API a fixture's calls were recorded in
// (request/header's api), the provider agent.mjs speaks it with: its API
// argument (AGENT_API).
var agentAPIs = map[string]string{
	"":                   "chat", // recorded before the header named the API
	"openai-chat":        "chat",
	"openai-responses":   "responses",
	"anthropic-messages": "anthropic",
	"gemini":             "google",
}

// agentAPI is the provider agent.mjs replays dir with: the one that spoke
// the API of its first model call.
func agentAPI(dir string) string {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	h := headers(fx.Logs[0])
	Expect(h).NotTo(BeEmpty(), "%s: the root made no model call", dir)
	api, ok := agentAPIs[h[0].API]
	Expect(ok).To(BeTrue(), "%s: recorded in %q, which agent.mjs does not speak", dir, h[0].API)
	return api
}

// desk is the aimock script of the desk's scenario in every API, keyed by
// what the request ends with, the way a model would answer it: the
// research calls for the question, a release_notes call for each
// researcher, an answer to each tool result, then the follow-up. It gives
// no call ids: each API's own scheme names them (aimock's, or none for
// Gemini, whose calls serve names).
const desk = `{"fixtures": [
 {"match": {"toolResultContains": "v2.4 (March):"}, "response": {"content": "v2.4 added SSO login and audit log export."}},
 {"match": {"toolResultContains": "v2.5 (June):"}, "response": {"content": "v2.5 added offline mode and faster sync, and dropped the v1 API."}},
 {"match": {"toolResultContains": "dropped the v1 API"}, "response": {"content": "v2.4 brought SSO and audit export; v2.5 brings offline mode and drops the v1 API."}},
 {"match": {"userMessage": "Compare v2.4 and v2.5", "hasToolResult": false}, "response": {"toolCalls": [
   {"name": "research", "arguments": "{\"question\":\"What shipped in v2.4?\"}"},
   {"name": "research", "arguments": "{\"question\":\"What shipped in v2.5?\"}"}]}},
 {"match": {"userMessage": "What shipped in v2.4?", "hasToolResult": false}, "response": {"toolCalls": [{"name": "release_notes", "arguments": "{\"version\":\"v2.4\"}"}]}},
 {"match": {"userMessage": "What shipped in v2.5?", "hasToolResult": false}, "response": {"toolCalls": [{"name": "release_notes", "arguments": "{\"version\":\"v2.5\"}"}]}},
 {"match": {"userMessage": "what does v2.5 drop?", "hasToolResult": false}, "response": {"content": "The v1 API."}}
]}`

// startAimock runs aimock with desk, skipping the spec when aimock is not
// installed (failing it when AGENTSNAP_REQUIRE_AIMOCK=1, as CI sets). It
// returns its URL and what stops it, once, at the latest when the spec
// ends.
func startAimock(ctx context.Context) (string, func()) {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "aimock.json")
	Expect(os.WriteFile(path, []byte(desk), 0o644)).To(Succeed())
	srv, err := aimock.Start(ctx, path)
	if errors.Is(err, aimock.ErrMissing) && !aimock.Required() {
		Skip(err.Error())
	}
	Expect(err).NotTo(HaveOccurred())
	stop := sync.OnceFunc(srv.Stop)
	DeferCleanup(stop)
	return srv.URL, stop
}

// researchCalls are the ids of the research calls the root's answers made,
// in order.
func researchCalls(root *session.Log) []string {
	GinkgoHelper()
	var ids []string
	for _, e := range root.Events {
		if e.Type != session.TypeToolCall {
			continue
		}
		var c session.ToolCallData
		Expect(json.Unmarshal(e.Data, &c)).To(Succeed())
		if c.Name == "research" {
			ids = append(ids, c.CallID)
		}
	}
	return ids
}

// bothOpen reports whether serve's recording lines show both researchers'
// turns open at once: each started before either ended.
func bothOpen(verdict string) bool {
	started, ended := 0, false
	for _, line := range strings.Split(verdict, "\n") {
		switch {
		case strings.Contains(line, "spawn child via") && strings.HasSuffix(line, "turn 1"):
			if ended {
				return false
			}
			started++
		case strings.Contains(line, "spawn child via") && strings.HasSuffix(line, "ended completed"):
			ended = true
		}
	}
	return started == 2
}

// recordLive records the fixture apis/API-compare live against aimock
// through serve, in the API the agent's provider api speaks (aimock's
// base URL plus origin, as serve's live driver of that API takes it): into
// a copy of it, or into the fixture itself when AGENTSNAP_RECORD names it.
// It returns the folder, serve's verdict and what stops aimock.
func recordLive(ctx context.Context, api, origin string) (dir, verdict string, stop func()) {
	GinkgoHelper()
	url, stop := startAimock(ctx)
	committed := filepath.Join("fixtures", "apis", api+"-compare")
	dir = nodetest.CopyFixture(committed, scenario.File)
	asked, err := harness.RecordAsked(committed)
	Expect(err).NotTo(HaveOccurred())
	if asked {
		dir = committed // AGENTSNAP_RECORD names it: this recording is the fixture
	}
	GinkgoT().Setenv("CI", "") // serve --record refuses under CI
	GinkgoT().Setenv("AGENT_API", api)
	live := nodetest.Environ([]string{"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AGENTSNAP_BASE_URL", "AGENTSNAP_MODEL"}, "AGENTSNAP_API_KEY=aimock-key-0123456789")
	args := []string{"--record", "--live", "--base-url", url + origin, "--model", "m-1"}
	if asked && harness.UpdateRequested() {
		// -update takes the new transcript at once, as the harness's
		// -record does: the API's call ids, new in each recording, rename
		// the children, which review --accept would not take unforced.
		args = append(args, "--replace-golden")
	}
	code, verdict := kit.Run(ctx, live, dir, dir, args...)
	Expect(code).To(Equal(0), verdict)
	if nodetest.Exists(filepath.Join(dir, fixture.ProposalFile)) {
		Fail(dir + " was re-recorded and its transcript changed: take it with -- -update, or go tool agentsnap review " + dir)
	}
	return dir, verdict, stop
}

// checkTree checks the sessions of the desk's recording in dir: every
// call in the API logged, the root's first with setting among its
// settings; the two researchers spawned by the root's research calls,
// whose first id matches calls; and returns those ids.
func checkTree(dir, logged, calls, setting string) []string {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	Expect(fx.Scenario.Recorded.Provider).To(Equal("live"))
	Expect(fx.Logs).To(HaveLen(3), "the root and one child per research call")
	ids := researchCalls(fx.Logs[0])
	Expect(ids).To(HaveLen(2))
	Expect(ids[0]).To(MatchRegexp(calls), "the API's own call ids name the children")
	first := headers(fx.Logs[0])[0]
	Expect(string(first.Settings)).To(ContainSubstring(setting), "the provider's own members are recorded, and reach a live model as sent")
	for i, l := range fx.Logs {
		for _, h := range headers(l) {
			Expect(h.API).To(Equal(logged), "session %d's calls are %s calls", i, logged)
		}
		if i == 0 {
			continue
		}
		Expect(l.Header.ParentSession).To(Equal("root"))
		Expect(l.Header.ParentCallID).To(Equal(ids[i-1]), "child %d is named by the research call that made it", i)
		Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(headers(l)).To(HaveLen(2), "the child's own tool loop: release_notes, then its answer")
	}
	return ids
}

var _ = Describe("the Vercel AI SDK agent on every model API, recorded against aimock and replayed offline", Label("node"), func() {
	BeforeEach(kit.Require)

	DescribeTable("records through serve --live in the API its provider speaks, the researchers at once, then replays with aimock gone",
		func(ctx SpecContext, api, logged, origin, calls, setting string) {
			dir, verdict, stop := recordLive(ctx, api, origin)
			Expect(verdict).To(ContainSubstring("recorded " + dir + ": 3 sessions, 7 model calls"))
			Expect(bothOpen(verdict)).To(BeTrue(), "the AI SDK runs the step's two research calls at once:\n%s", verdict)
			ids := checkTree(dir, logged, calls, setting)

			transcript := string(mustRead(filepath.Join(dir, fixture.GoldenFile)))
			Expect(transcript).To(ContainSubstring(`call ` + ids[0] + ` research {"question":"What shipped in v2.4?"}`))
			Expect(transcript).To(MatchRegexp(`result \S+ \(recorded\): .*v2\.5 \(June\): offline mode, 30% faster sync, drops the legacy v1 API\.`))
			Expect(transcript).To(MatchRegexp(`result ` + regexp.QuoteMeta(ids[1]) + `: .*v2\.5 added offline mode and faster sync, and dropped the v1 API\.`))
			Expect(transcript).To(ContainSubstring("assistant: v2.4 brought SSO and audit export; v2.5 brings offline mode and drops the v1 API."))
			Expect(transcript).To(ContainSubstring("assistant: The v1 API."))

			By("replaying offline: aimock stopped")
			stop()
			code, verdict := kit.Run(ctx, nil, dir, dir)
			Expect(code).To(Equal(0), verdict)
			Expect(verdict).To(MatchRegexp(verdictOK(dir)))
		},
		Entry("@ai-sdk/openai's default model: the Responses API", SpecTimeout(2*time.Minute), "responses", "openai-responses", "/v1", `^call_`, `"strict":false`),
		Entry("@ai-sdk/anthropic: Anthropic Messages", SpecTimeout(2*time.Minute), "anthropic", "anthropic-messages", "", `^toolu_`, `"eager_input_streaming":true`),
		Entry("@ai-sdk/google: the Gemini API, whose calls serve names", SpecTimeout(2*time.Minute), "google", "gemini", "", `^call_1_1_0$`, `"functionCallingConfig":{"mode":"AUTO"}`),
	)
})

// mustRead is the text of file.
func mustRead(file string) []byte {
	GinkgoHelper()
	b, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	return b
}
