package agentsnap_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// briefAgent is a runtime of its own: one model call per prompt, its log
// written with package journal. A real loop would run the tools the model
// calls and take another step (see package journal).
var briefAgent = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
	j, err := journal.NewRoot(ctx, journal.Config{Store: env.Store, Clock: env.Clock, Cwd: env.Cwd})
	if err != nil {
		return err
	}
	return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
		j.StartTurn(journal.TriggerUser, journal.UserText(prompt))
		j.StartStep()
		req := &llm.Request{Model: env.Model, System: "Answer in one line."}
		call, err := j.BeginCall(ctx, env.Provider, req)
		if err != nil {
			return err
		}
		stream, err := env.Driver.Stream(ctx, req)
		if err != nil {
			// The call could not start: record how the turn ended, then stop.
			return errors.Join(err, j.EndTurn(ctx, session.EndReason{Kind: session.TurnError, Message: err.Error()}))
		}
		for c := range llm.Normalize(ctx, stream) {
			call.Chunk(c)
		}
		reason := session.EndReason{Kind: session.TurnCompleted}
		switch _, finish := call.End(); finish.Kind {
		case session.FinishError:
			reason = session.EndReason{Kind: session.TurnError, Message: finish.Failure.Message}
		case session.FinishAborted:
			reason = session.EndReason{Kind: session.TurnAborted}
		}
		return j.EndTurn(ctx, reason) // ends the open step first
	})
})

// A runtime run the way the harness and the recorder run it: an Env with a
// model, a store and the scenario's prompts. Here the model is scripted per
// session and turn; under agentsnap it is the replay driver.
func ExampleRuntimeFunc() {
	answers := map[string][]string{"root": {"Paris.", "About 2.1 million."}}
	model := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
		text := answers[req.Session.ID][req.Turn-1]
		m := llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}
		return slices.Values(llm.StreamMessage(m, nil, "")), nil
	})
	store := memory.New()
	defer store.Close()
	env := &agentsnap.Env{
		Scenario: &scenario.Scenario{Prompts: []string{"Capital of France?", "Its population?"}},
		Driver:   model,
		Provider: "scripted",
		Model:    "m",
		Store:    store,
		Clock:    func() time.Time { return agentsnap.Epoch },
		Logf:     func(string, ...any) {},
	}
	ctx := context.Background()
	if err := briefAgent.Run(ctx, env); err != nil {
		panic(err)
	}
	logs, err := persistence.LoadAll(ctx, store)
	if err != nil {
		panic(err)
	}
	text, err := transcript.Render(logs)
	if err != nil {
		panic(err)
	}
	fmt.Print(text)
	// Output:
	// == root ==
	// turn 1 (user)
	//   user: Capital of France?
	//   step 1
	//     assistant: Paris.
	//   ended completed
	// turn 2 (user)
	//   user: Its population?
	//   step 1
	//     assistant: About 2.1 million.
	//   ended completed
}
