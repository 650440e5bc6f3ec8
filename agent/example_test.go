package agent_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
)

// The reference runtime replays one of agentsnap's own fixtures: a fork
// child that remembers its parent's codeword.
func ExampleReference() {
	fx, err := fixture.Load("../fixtures/fork/codeword")
	if err != nil {
		panic(err)
	}
	o, err := judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference})
	if err != nil {
		panic(err)
	}
	fmt.Println(fx.Name, "matches its recording:", o.Passed())
	// Output: fork/codeword matches its recording: true
}
