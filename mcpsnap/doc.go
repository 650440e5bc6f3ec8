// Package mcpsnap records and replays an agent's MCP requests, per
// session, for an agent on the MCP Go SDK (github.com/modelcontextprotocol/go-sdk)
// run under agentsnap's wire.Runtime: [Transport] wraps the transport to
// a server. While recording, each request goes to the live server and its
// answer is written into the log of the session whose context made it
// (an mcp/call event, CONTRACT.md); in a replay the recording answers it,
// so no server runs, and a fork child gets its own answers, never the
// ones its inherited turns hold.
//
//	var myAgent = wire.Runtime("my-agent", func(ctx context.Context, env *wire.Env) error {
//		client := mcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "v1"}, nil)
//		tools, err := client.Connect(ctx, mcpsnap.Transport(env, "weather", &mcp.CommandTransport{Command: exec.Command("weather-server")}), nil)
//		if err != nil {
//			return err
//		}
//		defer tools.Close()
//		// ... the model through env.HTTPClient; a child's calls, the MCP ones
//		// included, on wire.Spawn(ctx, callID) or wire.Fork(ctx, callID)
//	})
//
// It is a module of its own, so the MCP SDK stays out of the main
// module's dependencies.
package mcpsnap
