package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// echoing copies fork/codeword with the root's last answer saying text, as
// a model that echoes what it was shown.
func echoing(text string) string {
	dir := copyFixture("fork/codeword")
	path := filepath.Join(dir, fixture.PlaybookFile)
	pb, err := playbook.Load(path)
	Expect(err).NotTo(HaveOccurred())
	last := len(pb.Sessions["root"]) - 1
	pb.Sessions["root"][last].Text = "The codeword is MARMALADE, and " + text
	b, err := json.MarshalIndent(pb, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
	return dir
}

var _ = Describe("-record from a test, and the secrets it cannot check", Label("secrets"), func() {
	It("warns that a key variable's value too short to tell from text is not checked, as the recorder does", func() {
		dir := copyFixture("fork/codeword")
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "OPENAI_API_KEY": "dummy"})
		t := &captureTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(BeEmpty())
		Expect(strings.Join(t.logs, "\n")).To(ContainSubstring("the value of OPENAI_API_KEY is shorter than 8 bytes, too short to tell from ordinary text: the recording is not checked for it"))
	})
})

var _ = Describe("-record from a test with AGENTSNAP_SECRET_VARS", Label("secrets"), func() {
	// A token agentsnap cannot see sent — one the agent's own HTTP client
	// adds in a header of its own — echoed by the model.
	const token = "tnt-own-header-0123456789abcdef"

	It("refuses a recording that holds the value of a variable it names, naming the variable, never the value", func() {
		dir := echoing("the tenant token is " + token)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_SECRET_VARS": "OTHER_VAR, TENANT_TOKEN"})
		GinkgoT().Setenv("TENANT_TOKEN", token)
		GinkgoT().Setenv("OTHER_VAR", "other-value-0123456789")
		t := &captureTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(HaveExactElements(ContainSubstring("refusing to save: a secret appears in the recording: the value of TENANT_TOKEN appears in session.jsonl line ")))
		out := strings.Join(append(t.fatals, t.logs...), "\n")
		traces, err := leaktest.Traces(token, []string{filepath.Join(dir, fixture.RootLog), filepath.Join(dir, "transcript.golden")}, out)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the test's output:\n%s", out)
	})

	It("takes an entry that names no variable that is set for a value given by mistake: a secret, named by its place, with a warning", func() {
		dir := echoing("the tenant token is " + token)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_SECRET_VARS": token})
		t := &captureTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(HaveExactElements(ContainSubstring("refusing to save: a secret appears in the recording: the value of entry 1 of AGENTSNAP_SECRET_VARS appears in session.jsonl line ")))
		out := strings.Join(append(t.fatals, t.logs...), "\n")
		Expect(out).To(ContainSubstring("the value of the variable named by entry 1 of AGENTSNAP_SECRET_VARS is empty (is it set?): the recording is not checked for it"))
		traces, err := leaktest.Traces(token, nil, out)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the test's output:\n%s", out)
	})

	It("records, with the warning, when a variable it names is not set and nothing holds it", func() {
		dir := copyFixture("fork/codeword")
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_SECRET_VARS": "TENANT_TOKEN"})
		GinkgoT().Setenv("TENANT_TOKEN", "")
		t := &captureTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(BeEmpty())
		Expect(strings.Join(t.logs, "\n")).To(ContainSubstring("the value of the variable named by entry 1 of AGENTSNAP_SECRET_VARS is empty (is it set?): the recording is not checked for it"))
	})
})

// reportTB keeps every message a test would print: failures and logs.
type reportTB struct {
	testing.TB
	mu  sync.Mutex
	out []string
}

func (c *reportTB) Helper() {}
func (c *reportTB) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = append(c.out, s)
}
func (c *reportTB) Error(args ...any)                 { c.add(fmt.Sprint(args...)) }
func (c *reportTB) Errorf(format string, args ...any) { c.add(fmt.Sprintf(format, args...)) }
func (c *reportTB) Fatalf(format string, args ...any) { c.add(fmt.Sprintf(format, args...)) }
func (c *reportTB) Logf(format string, args ...any)   { c.add(fmt.Sprintf(format, args...)) }
func (c *reportTB) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.out, "\n")
}

// keyedAgent is an agent on openai-go that sends key as its API key and
// each prompt with say after it.
func keyedAgent(key, say string) agentsnap.Runtime {
	return wire.Runtime("keyed", func(ctx context.Context, env *wire.Env) error {
		client := openai.NewClient(option.WithBaseURL(env.BaseURL), option.WithHTTPClient(env.HTTPClient), option.WithAPIKey(key), option.WithMaxRetries(0))
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
				Model:    "m",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt + say)},
			})
			return err
		})
	})
}

var _ = Describe("a replay's verdict in a test, with a secret in what the agent sends", Label("secrets"), func() {
	// What a developer's shell holds while replaying; never in a fixture.
	const key = "sk-shell-key-0123456789abcdefXYZ"

	// leaky copies fork/codeword with its first prompt holding the key:
	// the reference runtime sends it, so the replay drifts from the
	// recording and its transcript from the golden.
	leaky := func() string {
		dir := copyFixture("fork/codeword")
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		b = bytes.Replace(b, []byte("the project codeword is MARMALADE."), []byte("the project codeword is MARMALADE and the key is "+key+"."), 1)
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
		return dir
	}

	BeforeEach(func() {
		recordEnv(map[string]string{"OPENAI_API_KEY": key})
	})

	It("shows a key variable's value as [REDACTED] in every failure and log line of Check", func() {
		t := &reportTB{TB: GinkgoTB()}
		harness.Check(t, leaky(), harness.Options{Runtime: agent.Reference})
		out := t.text()
		Expect(out).To(ContainSubstring("request drift: root (root session), model call 1"))
		Expect(out).To(ContainSubstring("the key is " + secret.Redacted))
		Expect(out).To(ContainSubstring("the transcript differs from"))
		Expect(out).NotTo(ContainSubstring(key))
	})

	It("shows it as [REDACTED] in the Gomega matchers' failure messages", func() {
		t := &reportTB{TB: GinkgoTB()}
		o := harness.Run(t, leaky(), harness.Options{Runtime: agent.Reference})
		rec := harness.MatchRecording()
		Expect(rec.Match(o)).To(BeFalse())
		golden := harness.MatchGolden(t)
		Expect(golden.Match(o)).To(BeFalse())
		for _, msg := range []string{rec.FailureMessage(o), golden.FailureMessage(o)} {
			Expect(msg).To(ContainSubstring("the key is " + secret.Redacted))
			Expect(msg).NotTo(ContainSubstring(key))
		}
		Expect(t.text()).NotTo(ContainSubstring(key))
	})

	It("shows the key the agent sends, which no variable holds, as [REDACTED], as serve's verdict does", func() {
		const own = "sk-agent-own-key-0123456789abcdef"
		dir := newFixtureIn("custom/keyed", `{"prompts": ["Say OK."]}`, `{"sessions": {"root": [{"text": "OK"}]}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = keyedAgent(own, "")
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())

		t := &reportTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: keyedAgent(own, " My key is "+own+".")})
		out := t.text()
		Expect(out).To(ContainSubstring("request drift: root (root session), model call 1"))
		Expect(out).To(ContainSubstring("My key is " + secret.Redacted))
		Expect(out).NotTo(ContainSubstring(own))
	})
})

var _ = Describe("a replay's failure in a test, when the agent's dummy key is the word agentsnap", Label("secrets"), func() {
	// examples/langchaingo gives its clients the token "agentsnap": long
	// enough to be a secret, and the name every command a failure ends
	// with starts with.
	It("names the commands that fix it whole: agentsnap's own name is no secret", func() {
		dir := newFixtureIn("custom/dummy", `{"prompts": ["Say OK."]}`, `{"sessions": {"root": [{"text": "OK"}]}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = keyedAgent("agentsnap", "")
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).NotTo(HaveOccurred())
		golden := filepath.Join(dir, fixture.GoldenFile)
		b, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(golden, bytes.Replace(b, []byte("assistant: OK"), []byte("assistant: OK!"), 1), 0o644)).To(Succeed())

		t := &reportTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: keyedAgent("agentsnap", "")})
		out := t.text()
		Expect(out).To(ContainSubstring("the transcript differs from"))
		// The -update command names this spec, which says agentsnap; out of
		// CI the review command follows ("go tool agentsnap review DIR").
		Expect(out).To(ContainSubstring("dummy key is the word agentsnap"))
		Expect(out).NotTo(ContainSubstring(secret.Redacted))
	})
})

// newFixtureIn writes a scenario folder CATEGORY/NAME under a temporary
// root from its scenario.json and playbook.json.
func newFixtureIn(name, sc, pb string) string {
	dir := filepath.Join(GinkgoT().TempDir(), name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(sc), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(pb), 0o644)).To(Succeed())
	return dir
}

// deadlineTB is a test whose binary's -timeout ends soon.
type deadlineTB struct {
	reportTB
	at time.Time
}

func (d *deadlineTB) Deadline() (time.Time, bool) { return d.at, true }

var _ = Describe("a test's failures redacted", Label("secrets"), func() {
	It("still end a replay before the test binary's deadline (go test -timeout), the test's own, which the redaction must not hide", func(SpecContext) {
		t := &deadlineTB{reportTB: reportTB{TB: GinkgoTB()}, at: time.Now().Add(300 * time.Millisecond)}
		stuck := agentsnap.RuntimeFunc(func(ctx context.Context, _ *agentsnap.Env) error {
			<-ctx.Done() // a runtime that waits for what never comes
			return ctx.Err()
		})
		harness.Run(t, copyFixture("fork/codeword"), harness.Options{Runtime: stuck})
		Expect(t.text()).To(ContainSubstring("the replay did not finish (context deadline exceeded)"))
	}, NodeTimeout(10*time.Second))
})

// warning is the reference runtime with a scenario check that warns about
// a setting, quoting it as runtimes do.
type warning struct {
	agentsnap.Runtime
	text string
}

func (w warning) Name() string { return agentsnap.ReferenceName }
func (w warning) Validate(*scenario.Scenario) ([]string, error) {
	return []string{w.text}, nil
}

var _ = Describe("what Run logs and stops on, with a key of the shell in it", Label("secrets"), func() {
	// A database password AGENTSNAP_SECRET_VARS names: the developer's
	// shell holds it, CI's log must not.
	const password = "pw-shell-db-0123456789abcdef"
	BeforeEach(func() {
		recordEnv(map[string]string{"AGENTSNAP_SECRET_VARS": "RUNS_DB_PASSWORD"})
		GinkgoT().Setenv("RUNS_DB_PASSWORD", password)
	})

	It("shows it as [REDACTED] in a log line: a runtime's warning that quotes a setting", func() {
		t := &reportTB{TB: GinkgoTB()}
		rt := warning{Runtime: agent.Reference, text: "agent.store: postgres://app:" + password + "@db/runs is ignored in a replay"}
		harness.Check(t, copyFixture("fork/codeword"), harness.Options{Runtime: rt})
		out := t.text()
		Expect(out).To(ContainSubstring("agent.store: postgres://app:" + secret.Redacted + "@db/runs is ignored in a replay"))
		Expect(out).NotTo(ContainSubstring(password))
	})

	It("shows it as [REDACTED] in the failure that stops the test: a store whose error quotes its address", func() {
		t := &reportTB{TB: GinkgoTB()}
		store := func() (persistence.Store, error) {
			return nil, fmt.Errorf("postgres://app:%s@db/runs: connection refused", password)
		}
		Expect(harness.Run(t, copyFixture("fork/codeword"), harness.Options{Runtime: agent.Reference, Store: store})).To(BeNil())
		out := t.text()
		Expect(out).To(ContainSubstring("postgres://app:" + secret.Redacted + "@db/runs: connection refused"))
		Expect(out).NotTo(ContainSubstring(password))
	})
})
