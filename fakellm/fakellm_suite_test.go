package fakellm_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFakellm(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fakellm")
}
