// Package mcpagent is an agent whose tools live on an MCP server: a chat
// loop on the OpenAI Go SDK that offers the model the tools the server
// lists (through the MCP Go SDK), calls them for the model, and delegates
// with subagent_spawn and subagent_fork. Nothing in it knows agentsnap;
// its tests run it under agentsnap, where package mcpsnap records each
// session's MCP requests and replays them with no server running.
//
// Re-record its fixtures from their playbooks (the specs start the clock
// server on loopback; this folder is a module of its own):
//
//	cd examples/mcp-agent && AGENTSNAP_RECORD='.' go test . -count=1 -update
//
// The clock answers the real time, so each recording changes the times in
// the logs and in transcript.golden; -update accepts the transcript
// (without it the replay fails and proposes transcript.golden.new).
package mcpagent
