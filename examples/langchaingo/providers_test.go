package langchaingo_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/langchaingo/opsdesk"
	"github.com/agentsnap/agentsnap/examples/langchaingo/opsloop"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tmc/langchaingo/llms"
)

// provider is one langchaingo provider the tool-loop desk is tested on:
// its fixtures' root, its runtime and how to build its model.
type provider struct {
	name    string // the llms package
	root    string
	runtime agentsnap.Runtime
	build   newModel
	callID  string // how its playbooks name the root's calls
	api     string // the API the wire read its requests as
}

// providers are the providers the tool-loop desk's specs run on:
// llms/anthropic, and llms/googleai with -tags googleai (googleai_test.go).
var providers = []provider{
	{"anthropic", "testdata/anthropic", claudeRuntime, claudeModel, "toolu_", "anthropic-messages"},
}

// providerEntries returns one table entry per provider, its parameters
// the provider and more (Ginkgo takes decorators, such as NodeTimeout,
// out of them).
func providerEntries(more ...any) []TableEntry {
	var out []TableEntry
	for _, p := range providers {
		out = append(out, Entry("llms/"+p.name, append([]any{p}, more...)...))
	}
	return out
}

// loopMixed is the tool-loop desk's fixture of provider p: two turns, a
// researcher (spawn) and a colleague (fork) asked in one answer.
func loopMixed(p provider) string { return p.root + "/mixed/researcher-and-colleague" }

// replayWith replays the fixture in dir with runtime rt.
func replayWith(rt agentsnap.Runtime, dir string) *harness.Outcome {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: rt})
	Expect(err).NotTo(HaveOccurred())
	return o
}

var _ = Describe("the tool-loop desk on langchaingo's other providers", func() {
	DescribeTable("replays its fixture to the recording and the golden, the researcher a spawn child and the colleague a fork inheriting turn 1",
		func(p provider) {
			o := harness.Run(GinkgoTB(), loopMixed(p), harness.Options{Runtime: p.runtime})
			Expect(o).To(harness.MatchRecording())
			Expect(o).To(harness.MatchGolden(GinkgoTB()))
			Expect(o.Fixture.Scenario.Recorded.Runtime).To(Equal("langchaingo-opsloop-" + p.name))
			burn, draft := "root/"+p.callID+"burn", "root/"+p.callID+"draft"
			Expect(o).To(tree.Spawned("root", p.callID+"burn"))
			Expect(o).To(tree.Forked("root", p.callID+"draft"))
			Expect(o).To(tree.InheritsTurns(draft, 1))
			Expect(o).To(tree.ModelCalls("root", 4))
			Expect(o).To(tree.ToolCalls(burn, tree.Exactly(
				tree.Call("service_status", HaveKeyWithValue("service", "billing")),
				tree.Call("calculator", HaveKeyWithValue("expression", "1.8 / 0.5")),
			)))
			Expect(o.Transcript).NotTo(ContainSubstring("sent no result"), "every call's result is paired with it")
			Expect(o.Transcript).To(ContainSubstring("result " + p.callID + "r_factor: "))
			for _, l := range o.Replayed {
				for _, h := range headers(l) {
					Expect(h.API).To(Equal(p.api))
					Expect(h.ToolNames).NotTo(BeEmpty(), "the loop declares its tools with llms.WithTools, which the provider sends")
				}
			}
		},
		providerEntries(),
	)

	DescribeTable("replays the same fixture with the desk streaming its answers (llms.WithStreamingFunc)",
		func(p provider) {
			var chunks atomic.Int64
			streaming := wire.Runtime("langchaingo-opsloop-"+p.name, loopRun(p.build, func(c *opsloop.Config) {
				c.Options = append(c.Options, llms.WithStreamingFunc(func(context.Context, []byte) error {
					chunks.Add(1)
					return nil
				}))
			}), wire.InferLineage())
			Expect(replayWith(streaming, loopMixed(p))).To(harness.MatchRecording())
			Expect(chunks.Load()).To(BeNumerically(">", 0), "langchaingo read the answers as a stream")
		},
		providerEntries(),
	)

	DescribeTable("shows drift at the exact call: a researcher given another prompt differs at its own first call, the desk's calls before it replaying",
		func(p provider) {
			changed := wire.Runtime("langchaingo-opsloop-"+p.name, loopRun(p.build, func(c *opsloop.Config) {
				c.Researcher = opsloop.ResearcherPrompt + " Show your working."
			}), wire.InferLineage())
			o := replayWith(changed, loopMixed(p))
			Expect(o.Passed()).To(BeFalse())
			Expect(o.Drift).NotTo(BeNil())
			Expect(o.Drift.String()).To(HavePrefix("session 1 (spawn of root via %sburn), model call 1 (turn 1 step 1): the system prompt changed", p.callID))
		},
		providerEntries(),
	)

	DescribeTable("names the setting when the temperature the desk passes with llms.WithTemperature changes",
		func(p provider) {
			dir := copyFixture(loopMixed(p))
			edit(filepath.Join(dir, scenario.File), `"temperature": 0.2`, `"temperature": 0.7`)
			o := replayWith(p.runtime, dir)
			Expect(o.Drift).NotTo(BeNil())
			Expect(o.Drift.Session).To(Equal("root"))
			Expect(o.Drift.Call).To(Equal(1))
			Expect(o.Drift.String()).To(And(ContainSubstring("the request settings changed"), ContainSubstring("temperature"), ContainSubstring("0.7")))
		},
		providerEntries(),
	)
})

// functionsDesk is the functions-agent desk (opsdesk) on provider p's
// model.
func functionsDesk(p provider) agentsnap.Runtime {
	return wire.Runtime("langchaingo-opsdesk-"+p.name, func(ctx context.Context, env *wire.Env) error {
		model, err := p.build(ctx, env)
		if err != nil {
			return err
		}
		if c, ok := model.(io.Closer); ok {
			defer c.Close()
		}
		desk, err := opsdesk.New(opsdesk.Config{LLM: model, System: "You are Harbor."})
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := desk.Ask(ctx, prompt)
			return err
		})
	}, wire.InferLineage())
}

var _ = Describe("why the tool loop", func() {
	DescribeTable("agents.OpenAIFunctionsAgent on the provider declares no tool: llms.WithFunctions is read by llms/openai only",
		func(p provider, tools int) {
			dir := filepath.Join(GinkgoT().TempDir(), "tools", "unseen")
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{"prompts": ["Is billing healthy?"], "agent": {}}`), 0o644)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {"root": [{"text": "I have no tools to check it with."}]}}`), 0o644)).To(Succeed())
			ropts, err := recorder.PlaybookOptions(dir, 0)
			Expect(err).NotTo(HaveOccurred())
			ropts.Runtime = functionsDesk(p)
			_, err = recorder.Record(context.Background(), dir, ropts)
			Expect(err).NotTo(HaveOccurred())
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			hs := headers(fx.Logs[0])
			Expect(hs).To(HaveLen(1))
			Expect(hs[0].API).To(Equal(p.api))
			Expect(hs[0].ToolCount).To(Equal(tools), "the desk has service_status, calculator and ask_researcher")
		},
		append([]TableEntry{Entry("llms/openai, the control: all three", provider{name: "openai", build: openaiModel, api: "openai-chat"}, 3)},
			providerEntries(0)...),
	)
})

// headers returns a log's request/header payloads, in order.
func headers(l *session.Log) []session.RequestHeaderData {
	GinkgoHelper()
	var out []session.RequestHeaderData
	for _, e := range l.Events {
		if e.Type == session.TypeRequestHeader {
			var d session.RequestHeaderData
			Expect(json.Unmarshal(e.Data, &d)).To(Succeed())
			out = append(out, d)
		}
	}
	return out
}
