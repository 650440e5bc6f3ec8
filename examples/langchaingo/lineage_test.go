package langchaingo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// explicitRuntime is the desk under the wire layer's default lineage: a
// call that names no session is the root's.
var explicitRuntime = wire.Runtime("langchaingo-opsdesk", deskRun())

var _ = Describe("telling the desk's children apart", func() {
	It("needs wire.InferLineage: without it the researcher's first call is taken for the desk's, and refused naming the option", func() {
		fx, err := fixture.Load(root + "/spawn/researcher")
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: explicitRuntime})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		Expect(errors.Join(o.RunErrors...)).To(MatchError(And(
			ContainSubstring("a request for session root, which waits for the results of its tool calls (call_auth, call_survey), carries none of them"),
			ContainSubstring("wire.InferLineage()"),
		)))
		Expect(o.Report()).To(ContainSubstring("session root/call_survey (spawn; session.1.jsonl): never called"))
	})

	It("refuses a child whose question holds the input of another open call of the same answer, naming both calls", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "spawn", "ambiguous")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{
  "prompts": ["Check checkout, and have a researcher say whether checkout latency is within 500 ms."],
  "agent": {"system": "You are Harbor."}
}`), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, fixture.PlaybookFile), []byte(`{"sessions": {
  "root": [
    {"toolCalls": [
      {"id": "call_checkout", "name": "service_status", "arguments": {"__arg1": "checkout"}},
      {"id": "call_ask", "name": "ask_researcher", "arguments": {"__arg1": "Is the checkout p95 latency within 500 ms?"}}
    ]},
    {"text": "Yes."}
  ],
  "call_ask": [{"text": "Yes, 320 ms."}]
}}`), 0o644)).To(Succeed())
		ropts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		ropts.Runtime = runtime
		_, err = recorder.Record(context.Background(), dir, ropts)
		Expect(err).To(MatchError(And(
			ContainSubstring("the prompt \"Is the checkout p95 latency within 500 ms?\" of a new session is in the arguments of 2 open tool calls (root call_checkout, root call_ask)"),
			ContainSubstring("wire.Spawn(ctx, callID)"),
		)))
		_, err = os.Stat(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).To(MatchError(os.ErrNotExist), "nothing was recorded")
	})
})
