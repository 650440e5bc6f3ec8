package scenario_test

import (
	"fmt"

	"github.com/agentsnap/agentsnap/scenario"
)

// Parse names the file, the line and the member of every problem, so an
// author can jump straight to it.
func ExampleParse() {
	text := `{
  "description": "spawn a child",
  "prompts": ["Ask a child for the largest planet."],
  "agent": {"preset": "default", "system": "Be brief.", "tools": ["subagent_spawn"]},
  "turnTimeout": "two seconds"
}`
	_, err := scenario.Parse([]byte(text), "fixtures/spawn/planet/scenario.json")
	fmt.Println(err)
	// Output:
	// scenario: fixtures/spawn/planet/scenario.json: invalid scenario: line 5: turnTimeout: "two seconds" is not a duration such as "500ms"
}
