package langchaingo_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLangchaingo(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "langchaingo: an agent on langchaingo under agentsnap")
}
