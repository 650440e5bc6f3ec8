// Package agent is agentsnap's reference runtime: an in-process agent loop
// that streams a model's answer, runs the tools it calls (a small catalogue,
// chosen per scenario in scenario.json's agent member) and delegates to
// subagents with subagent_spawn and subagent_fork, writing every step to a
// session log. It is the runtime the CLI records and checks agentsnap's own
// fixtures with, and a model for a team's own runtime; a team's tests
// replay their own runtime, not this one.
//
// Its machinery lives in agent/internal/loop; what a user holds is
// [Reference].
package agent

import (
	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent/internal/loop"
)

// Reference is agentsnap's reference runtime as the runtime under test: the
// runtime the CLI records and checks with. It reads scenario.json's agent
// member (preset, system prompt, tools) and the shared settings maxDepth,
// serial, maxAttempts and data.
var Reference agentsnap.Runtime = loop.Reference

// ReferenceName is the name the reference runtime records in scenario.json.
const ReferenceName = agentsnap.ReferenceName
