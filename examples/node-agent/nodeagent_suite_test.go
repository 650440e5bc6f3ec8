package nodeagent_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestNodeAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "node-agent: an agent on the openai npm package, replayed by agentsnap serve")
}

// The specs run one agentsnap binary, built once.
var _ = BeforeSuite(kit.Build)
