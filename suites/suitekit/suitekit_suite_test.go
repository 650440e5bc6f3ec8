package suitekit_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSuitekit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "suitekit")
}
