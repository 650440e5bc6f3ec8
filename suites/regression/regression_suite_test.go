package regression_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestRegression(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "regression")
}
