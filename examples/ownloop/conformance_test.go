package ownloop_test

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// kitConfig describes ownloop to the conformance kit.
var kitConfig = conformance.Config{
	New:   func() agentsnap.Runtime { return ownloop.Runtime{} },
	Agent: json.RawMessage(`{"persona": "You are a test agent.", "tools": ["convert", "wordcount", "subagent_spawn", "subagent_fork"]}`),
	Tool:  conformance.ToolCall{Name: ownloop.ToolConvert, Arguments: json.RawMessage(`{"amount": 10, "from": "EUR", "to": "USD"}`)},
	// ownloop's delegation tools take {"task"}: the kit's prompt is the task.
	DelegateArgs: func(_, prompt string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"task": prompt})
		return b
	},
	// ownloop never retries a failed model call: a failure ends the turn.
	Skip: []string{"model-retry"},
}

var _ = Describe("the conformance kit", func() {
	It("finds no violation of the session-log contract in ownloop (its dsh-style cancel included)", func() {
		conformance.Run(GinkgoTB(), kitConfig)
	})

	It("would catch ownloop recording results in the order the tools finish", func() {
		// The kit's own tests prove each rule; this shows it is wired to
		// this runtime: a store that swaps two results of a step is caught.
		res, err := conformance.Check(context.Background(), conformance.Config{
			New:          func() agentsnap.Runtime { return swappedResults{} },
			Agent:        kitConfig.Agent,
			Tool:         kitConfig.Tool,
			DelegateArgs: kitConfig.DelegateArgs,
			Dir:          GinkgoT().TempDir(), // the kit keeps its own folder when a rule breaks, as it does here
		})
		Expect(err).NotTo(HaveOccurred())
		var rules []string
		for _, v := range res.Violations {
			rules = append(rules, v.Rule)
		}
		Expect(rules).To(ContainElement("tool-results-in-order"))
	})
})

// swappedResults is ownloop writing through a store that swaps the first
// two tool results of any step that has two: results in finish order.
type swappedResults struct{}

func (swappedResults) Name() string { return ownloop.Runtime{}.Name() }

func (swappedResults) Run(ctx context.Context, env *agentsnap.Env) error {
	e := *env
	e.Store = swapStore{env.Store}
	return ownloop.Runtime{}.Run(ctx, &e)
}

type swapStore struct{ persistence.Store }

func (s swapStore) Append(ctx context.Context, id string, events []session.Event) error {
	events = slices.Clone(events)
	for i := 0; i+1 < len(events); i++ {
		if events[i].Type == session.TypeToolResult && events[i+1].Type == session.TypeToolResult {
			events[i].Data, events[i+1].Data = events[i+1].Data, events[i].Data
			break
		}
	}
	return s.Store.Append(ctx, id, events)
}
