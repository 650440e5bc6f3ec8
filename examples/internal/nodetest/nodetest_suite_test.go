package nodetest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestNodetest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "examples/internal/nodetest")
}
