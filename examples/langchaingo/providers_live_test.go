package langchaingo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/harness/tree"
	"github.com/agentsnap/agentsnap/internal/aimock"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// loopAimock answers the tool-loop desk's mixed scenario as its playbooks
// do, for aimock (the independent mock of the model APIs, in its own
// fixture format), with PREFIX before every call id. aimock takes the
// first fixture that matches: those matched by the tool result a request
// ends with come first, as a request that ends with one still has a last
// user message.
const loopAimock = `{"fixtures": [
  {"match": {"toolResultContains": "INC-7: billing is slow"}, "response": {"content": "Budget burn 3.6x. Draft: INC-7: billing is slow and failing 1.8% of requests; we are investigating."}},
  {"match": {"toolResultContains": "3.6"}, "response": {"content": "3.6 times the allowed error rate."}},
  {"match": {"toolResultContains": "billing: degraded since 09:10"}, "response": {"content": "No: billing is degraded, p95 2400 ms and 1.8% errors."}},
  {"match": {"userMessage": "We are tracking incident INC-7 about billing. Is billing healthy?"}, "response": {"toolCalls": [
    {"id": "PREFIXbilling", "name": "service_status", "arguments": "{\"service\":\"billing\"}"}]}},
  {"match": {"userMessage": "Have a researcher compute the billing error budget burn, and a colleague draft the status-page update for our incident."}, "response": {"toolCalls": [
    {"id": "PREFIXburn", "name": "ask_researcher", "arguments": "{\"question\":\"Billing allows a 0.5% error rate. By what factor does its current error rate exceed that?\"}"},
    {"id": "PREFIXdraft", "name": "ask_colleague", "arguments": "{\"question\":\"Draft a two-sentence status-page update for the incident we are tracking.\"}"}]}},
  {"match": {"userMessage": "Billing allows a 0.5% error rate. By what factor does its current error rate exceed that?"}, "response": {"toolCalls": [
    {"id": "PREFIXr_billing", "name": "service_status", "arguments": "{\"service\":\"billing\"}"},
    {"id": "PREFIXr_factor", "name": "calculator", "arguments": "{\"expression\":\"1.8 / 0.5\"}"}]}},
  {"match": {"userMessage": "Draft a two-sentence status-page update for the incident we are tracking."}, "response": {"content": "INC-7: billing is slow and failing 1.8% of requests; we are investigating."}}
]}`

// startAimock starts aimock with fixtures, or skips the spec with the
// install hint when aimock is missing and not required (CI requires it).
// It returns the server and what stops it, once, before the spec ends at
// the latest.
func startAimock(ctx context.Context, fixtures string) (*aimock.Server, func()) {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "aimock.json")
	Expect(os.WriteFile(path, []byte(fixtures), 0o644)).To(Succeed())
	srv, err := aimock.Start(ctx, path)
	if errors.Is(err, aimock.ErrMissing) && !aimock.Required() {
		Skip(err.Error())
	}
	Expect(err).NotTo(HaveOccurred())
	stop := sync.OnceFunc(srv.Stop)
	DeferCleanup(stop)
	return srv, stop
}

// liveDriver returns the live driver of provider p's API at base, and the
// model a live recording asks for.
func liveDriver(p provider, base string) (llm.Driver, string) {
	GinkgoHelper()
	switch p.name {
	case "anthropic":
		d, err := anthropic.New(anthropic.Config{BaseURL: base, APIKey: "aimock-test-key-0123"})
		Expect(err).NotTo(HaveOccurred())
		return d, "claude-sonnet-4-5"
	default:
		d, err := gemini.New(gemini.Config{BaseURL: base, APIKey: "aimock-test-key-0123"})
		Expect(err).NotTo(HaveOccurred())
		return d, "gemini-2.5-flash"
	}
}

var _ = Describe("recording the tool-loop desk live against aimock, an independent server", func() {
	DescribeTable("records the tree through the provider's own API, then replays it offline",
		func(ctx SpecContext, p provider) {
			prefix := p.callID + "live_"
			srv, stop := startAimock(ctx, strings.ReplaceAll(loopAimock, "PREFIX", prefix))
			dir := copyScenario(loopMixed(p))
			drv, model := liveDriver(p, srv.URL)
			ropts := recorder.LiveOptions(drv, srv.URL, model)
			ropts.Provider = p.name
			ropts.Runtime = p.runtime
			res, err := recorder.Record(ctx, dir, ropts)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Sessions).To(Equal(3))

			By("replaying with aimock gone")
			stop()
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(fx.Scenario.Recorded.Model).To(Equal(model))
			o, err := judge.Replay(ctx, fx, harness.Options{Runtime: p.runtime})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
			Expect(o).To(harness.MatchGolden(GinkgoTB()))
			Expect(o).To(tree.Spawned("root", prefix+"burn"))
			Expect(o).To(tree.Forked("root", prefix+"draft"))
			Expect(o).To(tree.InheritsTurns("root/"+prefix+"draft", 1))
			Expect(o.Transcript).To(ContainSubstring("assistant: Budget burn 3.6x."))
			Expect(o.Transcript).NotTo(ContainSubstring("sent no result"))
			for _, l := range o.Replayed {
				for _, h := range headers(l) {
					Expect(h.Model).To(Equal(model), "the desk sends the recording's model")
					Expect(h.API).To(Equal(p.api))
				}
			}
		},
		providerEntries(NodeTimeout(2*time.Minute)),
	)
})
