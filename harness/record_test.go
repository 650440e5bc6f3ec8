package harness_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// fatalTB is a testing.TB that keeps Fatalf messages instead of ending the
// spec; harness.Run returns nil right after its Fatalf.
type fatalTB struct {
	testing.TB
	mu     sync.Mutex
	fatals []string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
}

// recordEnv sets the environment a recording from a test reads; every
// variable not given is cleared, so the developer's own settings (a key,
// CI) do not leak in.
func recordEnv(set map[string]string) {
	for _, v := range []string{"AGENTSNAP_RECORD", "CI", "AGENTSNAP_FORCE_UPDATE", "AGENTSNAP_BASE_URL", "AGENTSNAP_MODEL",
		"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
		"AGENTSNAP_KEEP_LIVE_FAILURES", "AGENTSNAP_UPDATE", "AGENTSNAP_RECORD_ONLY_CHANGED", "AGENTSNAP_RECORD_SESSION", "AGENTSNAP_SECRET_VARS"} {
		GinkgoT().Setenv(v, set[v])
	}
}

// newChildAnswer copies fork/codeword and changes the fork child's answer
// in its playbook, so a recording would change session.1.jsonl.
func newChildAnswer() string {
	dir := copyFixture("fork/codeword")
	path := filepath.Join(dir, fixture.PlaybookFile)
	pb, err := playbook.Load(path)
	Expect(err).NotTo(HaveOccurred())
	pb.Sessions["call_fork_1"][0].Text = "MARMALADE, remembered by the fork"
	b, err := json.MarshalIndent(pb, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
	return dir
}

// everyFile returns every file of dir with its bytes.
func everyFile(dir string) map[string]string {
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		out[e.Name()] = string(b)
	}
	return out
}

var _ = Describe("recording from the user's own tests", func() {
	It("re-records a scenario AGENTSNAP_RECORD matches and, with an update asked too, replays it green", func() {
		dir := newChildAnswer()
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_UPDATE": "1"})
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		Expect(os.ReadFile(filepath.Join(dir, fixture.GoldenFile))).To(Equal([]byte(o.Transcript)), "the recording replaced the golden")
		Expect(filepath.Join(dir, fixture.ProposalFile)).NotTo(BeAnExistingFile())
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		child, err := os.ReadFile(filepath.Join(dir, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(child)).To(ContainSubstring("remembered by the fork"))
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded.By).To(Equal("agentsnap (go test)"))
	})

	It("without an update, keeps the golden and leaves the new transcript beside it for review", func() {
		dir := newChildAnswer()
		golden := filepath.Join(dir, fixture.GoldenFile)
		before, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_UPDATE": ""})
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		Expect(o).To(harness.MatchRecording(), "the logs were re-recorded")
		Expect(os.ReadFile(golden)).To(Equal(before), "the golden is untouched")
		proposal, err := os.ReadFile(filepath.Join(dir, fixture.ProposalFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(proposal)).To(Equal(o.Transcript))
		Expect(string(proposal)).To(ContainSubstring("remembered by the fork"))
		Expect(judge.CompareGolden(o).Message).To(ContainSubstring("go tool agentsnap review"))
	})

	It("says how to review the proposal from the module root, as the failure does, for a package below it", func() {
		mod := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/agent\n"), 0o644)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(mod, "pkg", "testdata", "fork"), 0o755)).To(Succeed())
		Expect(os.Rename(newChildAnswer(), filepath.Join(mod, "pkg", "testdata", "fork", "codeword"))).To(Succeed())
		GinkgoT().Chdir(filepath.Join(mod, "pkg"))
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_UPDATE": ""})
		t := &captureTB{TB: GinkgoTB()}
		o := harness.Run(t, filepath.Join("testdata", "fork", "codeword"), harness.Options{Runtime: agent.Reference})
		Expect(o).To(harness.MatchRecording())
		Expect(t.logs).To(ContainElement(ContainSubstring("review it (go tool agentsnap review pkg/testdata/fork/codeword)")))
		Expect(judge.CompareGolden(o).Message).To(ContainSubstring("go tool agentsnap review pkg/testdata/fork/codeword"))
	})

	It("counts what it recorded in the singular for one session", func() {
		dir := copyFixture("errors/throw-midway")
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^errors/throw-midway$"})
		t := &captureTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.logs).To(ContainElement(MatchRegexp(`^harness: recorded (\(unchanged\) )?errors/throw-midway: 1 session, 2 model calls$`)), "%q", t.logs)
	})

	It("refuses to record under CI, changing nothing", func() {
		dir := newChildAnswer()
		before := everyFile(dir)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "CI": "true"})
		t := &fatalTB{TB: GinkgoTB()}
		Expect(harness.Run(t, dir, harness.Options{Runtime: agent.Reference})).To(BeNil())
		Expect(t.fatals).To(HaveExactElements(ContainSubstring("harness: refusing to record fork/codeword with CI=true: CI replays fixtures, it does not write them; record locally, or set AGENTSNAP_FORCE_UPDATE=1 to force")))
		Expect(everyFile(dir)).To(Equal(before))
	})

	It("refuses a pattern that is not a regular expression, saying what it wants", func() {
		dir := newChildAnswer()
		before := everyFile(dir)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "fork/("})
		t := &fatalTB{TB: GinkgoTB()}
		Expect(harness.Run(t, dir, harness.Options{Runtime: agent.Reference})).To(BeNil())
		Expect(t.fatals).To(HaveExactElements(SatisfyAll(
			HavePrefix(`harness: -record (or AGENTSNAP_RECORD) "fork/(" is not a regular expression`),
			HaveSuffix("give one that matches CATEGORY/NAME, such as '^fork/codeword$'"))))
		Expect(everyFile(dir)).To(Equal(before))
	})

	It("records nothing when the pattern does not match", func() {
		dir := newChildAnswer()
		before := everyFile(dir)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^spawn/"})
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		Expect(o.Stale).To(ContainSubstring("playbook.json changed since the recording"), "the edited playbook was not recorded")
		Expect(everyFile(dir)).To(Equal(before))
	})

	It("records from a live endpoint when AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key are set", func() {
		const key = "some-long-test-key"
		srv := httptest.NewServer(codewordServer{})
		DeferCleanup(srv.Close)
		dir := newChildAnswer()
		recordEnv(map[string]string{
			"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_BASE_URL": srv.URL + "/v1",
			"AGENTSNAP_MODEL": "m", "AGENTSNAP_API_KEY": key, "AGENTSNAP_UPDATE": "1",
		})
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(o.Transcript).To(ContainSubstring("assistant: The codeword is MARMALADE, live."))
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded.Model).To(Equal("m"))
		Expect(sc.Recorded.Provider).To(Equal("live"), "each call in the API the agent speaks")
		Expect(sc.Recorded.Playbook).To(BeEmpty())
		for name, content := range everyFile(dir) {
			Expect(content).NotTo(ContainSubstring(key), name)
		}
	})
})

var _ = Describe("recording only what changed from the user's own tests", func() {
	var calls atomic.Int64
	var live map[string]string
	var dir string
	BeforeEach(func() {
		calls.Store(0)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			codewordServer{}.ServeHTTP(w, r)
		}))
		DeferCleanup(srv.Close)
		live = map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_BASE_URL": srv.URL + "/v1",
			"AGENTSNAP_MODEL": "m", "AGENTSNAP_API_KEY": "some-long-test-key", "AGENTSNAP_UPDATE": "1"}
		dir = copyFixture("fork/codeword")
		recordEnv(live)
		harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		Expect(calls.Swap(0)).To(Equal(int64(4)), "the whole tree, recorded live")
		editScenario(dir, func(sc *scenario.Scenario) { sc.Prompts[1] += " Be quick." })
	})

	It("with AGENTSNAP_RECORD_ONLY_CHANGED=1, sends only the calls from the drift on and keeps the fork's log", func() {
		fork := everyFile(dir)[fixture.ChildLog(1)]
		live["AGENTSNAP_RECORD_ONLY_CHANGED"] = "1"
		recordEnv(live)
		o := harness.Run(GinkgoTB(), dir, harness.Options{Runtime: agent.Reference})
		Expect(calls.Load()).To(Equal(int64(3)), "the root's 2nd and 3rd calls and the fork's one; turn 1 replayed")
		Expect(o).To(harness.MatchRecording())
		Expect(o).To(harness.MatchGolden(GinkgoTB()))
		Expect(everyFile(dir)[fixture.ChildLog(1)]).To(Equal(fork))
		Expect(everyFile(dir)[fixture.RootLog]).To(ContainSubstring("Be quick."))
	})

	It("with an AGENTSNAP_RECORD_SESSION the recording lacks, refuses, names the sessions there are and writes nothing", func() {
		live["AGENTSNAP_RECORD_SESSION"] = "root/call_nope"
		recordEnv(live)
		before := everyFile(dir)
		t := &fatalTB{TB: GinkgoTB()}
		Expect(harness.Run(t, dir, harness.Options{Runtime: agent.Reference})).To(BeNil())
		Expect(t.fatals).To(HaveExactElements(ContainSubstring("--session root/call_nope names no recorded session; the recording has root, root/call_live_1")))
		Expect(everyFile(dir)).To(Equal(before))
		Expect(calls.Load()).To(BeZero())
	})
})

// editScenario changes the scenario.json of dir.
func editScenario(dir string, edit func(sc *scenario.Scenario)) {
	sc, err := scenario.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	edit(sc)
	Expect(sc.Save(dir)).To(Succeed())
}

// codewordServer is an OpenAI-compatible endpoint that answers fork/codeword
// from the last message of each request.
type codewordServer struct{}

func (codewordServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v string) {
		fmt.Fprintf(w, "data: %s\n\n", v)
		w.(http.Flusher).Flush()
	}
	last := body.Messages[len(body.Messages)-1]
	text, _ := last.Content.(string)
	switch {
	case last.Role == "tool":
		streamText(send, "The codeword is MARMALADE, live.")
	case strings.Contains(text, "Use subagent_fork"):
		args, _ := json.Marshal(`{"description":"Recall","prompt":"What is the project codeword?"}`)
		send(`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_live_1","type":"function","function":{"name":"subagent_fork","arguments":` + string(args) + `}}]}}]}`)
		send(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		send(`[DONE]`)
	case strings.Contains(text, "What is the project codeword?"):
		streamText(send, "MARMALADE")
	default:
		streamText(send, "OK")
	}
}
