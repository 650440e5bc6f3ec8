// Package agentsnap is the seam between agentsnap and the agent under test:
// golden-snapshot testing for LLM agents that delegate to subagents.
//
// A team records a live (or authored) run of its agent once; every later run
// replays the recorded model answers through a fake driver that serves each
// model call from the script of the session that made it — the root and
// every subagent have their own — and compares the replayed session logs and
// a readable transcript with the fixture and its golden file.
//
// The agent is any [Runtime]: agentsnap's reference runtime (agent.Reference),
// a team's own Go loop, or — through package wire — an agent on an SDK that
// only lets you swap its HTTP client. The harness (replay and comparison)
// and the recorder take the runtime and hand it an [Env] per run: the model
// (Env.Driver), where session logs go (Env.Store), the scenario and its
// prompts. Nothing else constructs the agent.
//
// A runtime of your own:
//
//	var MyAgent = agentsnap.RuntimeFunc(func(ctx context.Context, env *agentsnap.Env) error {
//		root, err := journal.NewRoot(ctx, journal.Config{Store: env.Store, Clock: env.Clock, Cwd: env.Cwd})
//		if err != nil {
//			return err
//		}
//		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
//			return myLoop(ctx, env.Driver, root, prompt) // StartTurn, StartStep, BeginCall, ...
//		})
//	})
//
// and its test:
//
//	func TestMyAgent(t *testing.T) {
//		dirs, err := harness.Discover("testdata/fixtures")
//		if err != nil {
//			t.Fatal(err)
//		}
//		for _, dir := range dirs {
//			t.Run(harness.Name(dir), func(t *testing.T) {
//				harness.Check(t, dir, harness.Options{Runtime: MyAgent})
//			})
//		}
//	}
//
// Package conformance checks a runtime against the session-log contract
// and names each violation with its fix.
package agentsnap
