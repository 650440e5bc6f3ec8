package eino_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestEino(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "eino: an agent on CloudWeGo Eino's ADK under agentsnap")
}
