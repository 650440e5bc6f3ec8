package ownloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// errNoSuchSession stands for a replay that has no recorded session for
// the caller.
var errNoSuchSession = errors.New("the replay has no such session")

// refuseHelpers answers the root from inner and refuses every helper's
// model call, as a replay refuses a session it has no recording of.
type refuseHelpers struct{ inner llm.Driver }

func (d refuseHelpers) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if req.Session.Depth > 0 {
		return nil, errNoSuchSession
	}
	return d.inner.Stream(ctx, req)
}

// runPlaybook runs ownloop with one prompt against a playbook (through
// wrap, when set) and returns the tool results recorded and Run's error.
func runPlaybook(pb *playbook.Playbook, wrap func(llm.Driver) llm.Driver) ([]string, error) {
	logs, err := runPlaybookLogs(context.Background(), pb, wrap)
	return toolResults(logs), err
}

// runPlaybookLogs is runPlaybook returning the logs written.
func runPlaybookLogs(ctx context.Context, pb *playbook.Playbook, wrap func(llm.Driver) llm.Driver) ([]*session.Log, error) {
	Expect(pb.Validate()).To(Succeed())
	var driver llm.Driver = playbook.NewDriver(pb, "playbook.json")
	if wrap != nil {
		driver = wrap(driver)
	}
	store := memory.New()
	DeferCleanup(store.Close)
	env := &agentsnap.Env{
		Scenario: &scenario.Scenario{
			Prompts: []string{"Go."},
			Agent:   json.RawMessage(`{"persona": "You are a test agent.", "tools": ["convert", "wordcount", "subagent_spawn"]}`),
		},
		Driver: driver, Store: store, Provider: "playbook", Model: "playbook",
		Clock: func() time.Time { return agentsnap.Epoch },
		Logf:  GinkgoT().Logf,
	}
	runErr := ownloop.Runtime{}.Run(ctx, env)
	logs, err := persistence.LoadAll(context.Background(), store)
	Expect(err).NotTo(HaveOccurred())
	return logs, runErr
}

var _ = Describe("a helper whose model call cannot start", func() {
	It("fails the run, naming the helper's session, although the root's turn goes on", func() {
		results, runErr := runPlaybook(&playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_help", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "count words"}`)}}},
				{Text: "done"},
			},
		}}, func(d llm.Driver) llm.Driver { return refuseHelpers{d} })
		Expect(results).To(HaveLen(1), "the root got the helper's failure as its tool result and finished its turn")
		Expect(runErr).To(MatchError(errNoSuchSession), "the recorded path was left: the run could not go on")
		Expect(runErr.Error()).To(ContainSubstring("session root/call_help turn 1 step 1: model call could not start"))
	})
})

var _ = Describe("a delegation with a blank task", func() {
	It("starts no helper and answers the model with an error saying what is missing", func() {
		results, runErr := runPlaybook(&playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_help", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "  \n"}`)}}},
				{Text: "done"},
			},
		}}, nil)
		Expect(runErr).NotTo(HaveOccurred())
		Expect(results).To(Equal([]string{`root: "task" is empty; say what the helper should do (error)`}))
	})
})
