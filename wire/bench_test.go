package wire_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/internal/wirebench"
)

// BenchmarkAgentReplay replays an agent on the official OpenAI Go SDK
// (examples/sdkagent: streamed calls, four tool steps per turn) in process,
// three ways in the same run, each round alternating their order:
//
//   - wire: through wire.Transport, a replay as agentsnap runs it — fakellm
//     from the recorded logs, a handler writing every log to a memory store;
//   - httprr: canned bytes as httprr replays them: the request as written on
//     the wire is the key of a map, its answer an HTTP response read back
//     with http.ReadResponse;
//   - floor: the recorded answers handed back in call order, the request
//     read and dropped: what the SDK costs by itself.
//
// It reports each side's median time, allocations and bytes per call and
// the ratios wire/httprr; wire's cost above the floor shows how its cost
// per call grows with the conversation (turns 4, 16, 64: 20, 80, 320
// calls). The same with go-vcr beside them: internal/wirebench/govcr.
//
//	go test -run '^$' -bench AgentReplay -benchtime 20x ./wire
func BenchmarkAgentReplay(b *testing.B) { wirebench.Bench(b) }

// BenchmarkAgentReplayWireOnly replays the same recordings through the wire
// alone, for a profile of the wire's own cost:
//
//	go test -run '^$' -bench AgentReplayWireOnly -benchtime 20x -memprofile mem.out ./wire
func BenchmarkAgentReplayWireOnly(b *testing.B) { wirebench.Alone(b, wirebench.Wire) }

// BenchmarkWireAlone replays the same recordings through the wire with no
// SDK — each recorded request sent as it crossed the wire, its answer read
// whole — for what the wire itself costs per call (time, CPU time,
// allocations, bytes) and how that cost grows with the conversation:
//
//	go test -run '^$' -bench WireAlone -benchtime 100x ./wire
func BenchmarkWireAlone(b *testing.B) { wirebench.Alone(b, wirebench.Direct) }

// BenchmarkAgentReplaySplit times the round trips of BenchmarkAgentReplay's
// wire and httprr sides apart from the agent: the first call, the later
// ones, and wire's start and end of a replay — what a run pays once
// against what every call pays:
//
//	go test -run '^$' -bench AgentReplaySplit -benchtime 40x ./wire
func BenchmarkAgentReplaySplit(b *testing.B) { wirebench.Split(b) }
