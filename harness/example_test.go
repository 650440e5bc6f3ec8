package harness_test

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/harness"
)

// Replay a committed fixture and read the verdict without a test.
func ExampleReplay() {
	fx, err := harness.LoadFixture("../fixtures/fork/codeword")
	if err != nil {
		panic(err)
	}
	o, err := harness.Replay(context.Background(), fx, harness.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Passed(), len(o.Replayed), o.Calls)
	fmt.Println(harness.CompareGolden(o).Message == "")
	// Output:
	// true 2 4
	// true
}
