package ownloop_test

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/examples/ownloop"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolResults returns every tool result of the logs as "session: text",
// errors marked.
func toolResults(logs []*session.Log) []string {
	var out []string
	for _, l := range logs {
		for _, e := range l.Events {
			var d session.ToolResultData
			if e.Type == session.TypeToolResult && e.Decode(&d) == nil {
				p := d.Message.Content[0]
				text := l.Header.ID + ": " + p.Content[0].Text
				if p.IsError {
					text += " (error)"
				}
				out = append(out, text)
			}
		}
	}
	return out
}

var _ = Describe("a tool the session was not offered", func() {
	It("answers the model with an error naming what it may use instead", func() {
		pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_conv", Name: ownloop.ToolConvert, Arguments: json.RawMessage(`{"amount": 1, "from": "EUR", "to": "USD"}`)}}},
				{ToolCalls: []playbook.ToolCall{{ID: "call_help", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "delegate again"}`)}}},
				{Text: "done"},
			},
			"call_help": {
				{ToolCalls: []playbook.ToolCall{{ID: "call_deeper", Name: ownloop.ToolSpawn, Arguments: json.RawMessage(`{"task": "and again"}`)}}},
				{Text: "did it myself"},
			},
		}}
		Expect(pb.Validate()).To(Succeed())
		store := memory.New()
		DeferCleanup(store.Close)
		env := &agentsnap.Env{
			Scenario: &scenario.Scenario{
				Prompts: []string{"Go."},
				Agent:   json.RawMessage(`{"persona": "You are a test agent.", "tools": ["wordcount", "subagent_spawn"], "maxDepth": 1}`),
			},
			Driver: playbook.NewDriver(pb, "playbook.json"), Store: store, Provider: "playbook", Model: "playbook",
			Clock: func() time.Time { return agentsnap.Epoch },
			Logf:  GinkgoT().Logf,
		}
		Expect(ownloop.Runtime{}.Run(context.Background(), env)).To(Succeed())
		logs, err := persistence.LoadAll(context.Background(), store)
		Expect(err).NotTo(HaveOccurred())
		Expect(toolResults(logs)).To(Equal([]string{
			`root: unknown tool "convert"; your tools: wordcount, subagent_spawn (error)`,
			"root: did it myself",
			"root/call_help: subagent_spawn: helpers at depth 1 may not delegate further (agent.maxDepth 1); do the task yourself (error)",
		}))
	})
})
