package memory_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/persistence/storetest"
)

// TestContract runs the store contract from plain go test, as a user
// checks a store of their own; the Ginkgo suite runs the same checks as
// one spec each.
func TestContract(t *testing.T) {
	if err := storetest.Run(t.Context(), newMemStorage); err != nil {
		t.Fatal(err)
	}
}
