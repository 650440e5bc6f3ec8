package mcpagent_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMCPAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mcp-agent")
}
