package openaiagentsjs_test

import "github.com/agentsnap/agentsnap/examples/internal/nodetest"

// runtimeName is the name the agent's fixtures are recorded under.
const runtimeName = "openai-agents-js"

// kit runs the agent's specs: node agent.mjs against agentsnap serve.
var kit = &nodetest.Kit{Runtime: runtimeName, Folder: "examples/openai-agents-js", Packages: []string{"@openai/agents", "openai", "zod", "agentsnap-lineage"}}
