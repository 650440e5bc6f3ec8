package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/conformance"
)

// Check the reference runtime; a team's own runtime goes where
// agent.Reference is.
func ExampleCheck() {
	res, err := conformance.Check(context.Background(), conformance.Config{
		New:   func() agentsnap.Runtime { return agent.Reference },
		Agent: json.RawMessage(`{"preset": "default", "system": "You are a test agent.", "tools": ["subagent_spawn", "subagent_fork", "add"]}`),
		Tool:  conformance.ToolCall{Name: "add", Arguments: json.RawMessage(`{"a": 2, "b": 3}`)},
		Skip:  []string{"hang-timeout"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d of %d scenarios passed, %d skipped: %v\n", len(res.Passed), len(conformance.Scenarios()), len(res.Skipped), res.Skipped)
	fmt.Println(res.Err())
	// Output:
	// 8 of 9 scenarios passed, 1 skipped: [hang-timeout]
	// <nil>
}
