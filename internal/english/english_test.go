package english_test

import (
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/internal/english"
)

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 model calls", 1: "1 model call", 2: "2 model calls", -1: "-1 model calls"} {
		if got := english.Count(n, "model call"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func ExampleCount() {
	fmt.Println(english.Count(1, "session"), english.Count(3, "session"))
	// Output: 1 session 3 sessions
}
