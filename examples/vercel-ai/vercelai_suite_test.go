package vercelai_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestVercelAI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "vercel-ai: an agent on the Vercel AI SDK, replayed by agentsnap serve")
}

// The specs run one agentsnap binary, built once.
var _ = BeforeSuite(kit.Build)
