package vercelai_test

import "github.com/agentsnap/agentsnap/examples/internal/nodetest"

// runtimeName is the name the agent's fixtures are recorded under.
const runtimeName = "vercel-ai"

// kit runs the agent's specs: node agent.mjs against agentsnap serve.
var kit = &nodetest.Kit{Runtime: runtimeName, Folder: "examples/vercel-ai", Packages: []string{"ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/google", "zod", "agentsnap-lineage"}}
