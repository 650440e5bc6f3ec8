package jsonscan_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJSONScan(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "jsonscan")
}
