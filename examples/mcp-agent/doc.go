// Package mcpagent is an agent whose tools live on an MCP server: a chat
// loop on the OpenAI Go SDK that offers the model the tools the server
// lists (through the MCP Go SDK), calls them for the model, and delegates
// with subagent_spawn and subagent_fork. Nothing in it knows agentsnap;
// its tests run it under agentsnap, where package mcpsnap records each
// session's MCP requests and replays them with no server running.
package mcpagent
