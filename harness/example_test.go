package harness_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
)

// Replay a committed fixture and read the verdict without a test.
func ExampleReplay() {
	fx, err := fixture.Load("../fixtures/fork/codeword")
	if err != nil {
		panic(err)
	}
	o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Passed(), len(o.Replayed), o.Calls)
	fmt.Println(judge.DiffGolden(o).Message == "") // DiffGolden writes nothing beside the golden
	// Output:
	// true 2 4
	// true
}
