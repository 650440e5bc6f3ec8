package judge_test

import (
	"context"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// scenario.json's recorded member names the model the logs were recorded
// with, which the replay offers the agent: without it every request would
// read as drift ("the model changed from playbook/playbook to /").
var _ = Describe("a replay of a fixture whose scenario.json has \"recorded\": null", func() {
	It("is refused, naming the file and what to do, and no re-recording is offered for it", func() {
		dir := filepath.Join("..", "fixtures", "fork", "codeword")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fx.Scenario.Recorded = nil // what "recorded": null, or no member, loads as

		o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
		Expect(err).To(MatchError(fixture.ErrFixture))
		Expect(o).To(BeNil())
		path := filepath.Join(dir, scenario.File)
		Expect(err.Error()).To(ContainSubstring(path + ` has no "recorded" member, or it is null, but the fixture holds recorded logs`))
		Expect(err.Error()).To(ContainSubstring("restore it from version control (git checkout -- " + path + ")"))
		Expect(err.Error()).NotTo(ContainSubstring("the model changed"))
		Expect(judge.RecordMends(dir, err)).To(BeFalse())
	})
})
