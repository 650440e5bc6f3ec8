package sdkagent_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSDKAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sdkagent: an agent on the OpenAI Go SDK under agentsnap")
}
