package openaiagentsjs_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestOpenAIAgentsJS(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "openai-agents-js: an agent on the OpenAI Agents SDK for JS, replayed by agentsnap serve")
}

// The specs run one agentsnap binary, built once.
var _ = BeforeSuite(kit.Build)
