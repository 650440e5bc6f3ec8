package responses_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestResponses(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "llm/responses")
}
