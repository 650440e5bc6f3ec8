// Package clock is a small MCP server whose answers change from call to
// call: the time, and how many times it was asked. An agent's fixture
// that calls it can only replay green from a recording.
package clock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	_ "time/tzdata" // zones on machines without a zone database

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NowArgs are the arguments of the tool now.
type NowArgs struct {
	Zone string `json:"zone" jsonschema:"an IANA time zone, e.g. Europe/Lisbon"`
}

// NewServer returns the clock server, reading the time from now.
func NewServer(now func() time.Time) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "clock", Version: "v1.0.0"}, nil)
	var checks atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: "now", Description: "The current time in a time zone."},
		func(_ context.Context, _ *mcp.CallToolRequest, in NowArgs) (*mcp.CallToolResult, any, error) {
			loc, err := time.LoadLocation(in.Zone)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("unknown time zone %q; give an IANA zone such as Europe/Lisbon", in.Zone)}}}, nil, nil
			}
			text := fmt.Sprintf("%s in %s (check #%d)", now().In(loc).Format(time.RFC3339), in.Zone, checks.Add(1))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s
}
